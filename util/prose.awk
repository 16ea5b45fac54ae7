# SPDX-License-Identifier: MIT
# A text resource (analyzers/write/prose.txt, orchestrator/prose.txt) -> a header: each block
# from a line @NAME to the next becomes
#   #define PROSE_NAME "line\n" "line\n" ...
# (backslashes and quotes escaped for C); a line ending in \c has no newline (the \c dropped);
# what comes before the first block is a comment. awk -v guard=GUARD -f util/prose.awk FILE
BEGIN { print "/* Generated from " ARGV[1] " by util/prose.awk. */"
	print "#ifndef " guard; print "#define " guard }
/^@[A-Z_]+$/ { if (name != "") print ""; name = substr($0, 2); printf "#define PROSE_%s", name; next }
name != "" {
	nl = "\\n"
	if (sub(/\\c$/, "")) nl = ""
	out = "" # each backslash and quote escaped (gsub's replacement differs between awks)
	for (i = 1; i <= length($0); i++) {
		ch = substr($0, i, 1)
		out = out (ch == "\\" || ch == "\"" ? "\\" : "") ch
	}
	printf " \\\n\t\"%s%s\"", out, nl
}
END { if (name != "") print ""; print "#endif" }
