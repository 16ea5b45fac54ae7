# SPDX-License-Identifier: MIT
# analyzers/write/prose.txt -> prose.h: each block from a line @NAME to the next becomes
#   #define PROSE_NAME "line\n" "line\n" ...
# (backslashes and quotes escaped for C); a line ending in \c has no newline (the \c dropped);
# what comes before the first block is a comment.
BEGIN { print "/* Generated from analyzers/write/prose.txt by analyzers/write/prose.awk. */"
	print "#ifndef ANALYZERS_WRITE_PROSE_H"; print "#define ANALYZERS_WRITE_PROSE_H" }
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
