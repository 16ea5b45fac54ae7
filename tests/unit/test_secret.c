/* Unit tests for orchestrator/campaign/secret.c: which names and contents
 * look secret. The sample secrets are cut in two in this source ("AKIA"
 * "...") so that the file itself, in a patch, looks secret to no scanner.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/campaign/secret.h"

#include <string.h>

static void names_that_look_secret(void)
{
	const char *why = NULL;
	CHECK(secret_name("API_TOKEN", &why));
	CHECK_STR(why, "TOKEN");
	CHECK(secret_name("wandb_api_key", &why));
	CHECK_STR(why, "KEY");
	CHECK(secret_name("DB_Password", &why));
	CHECK_STR(why, "PASSWORD");
	CHECK(secret_name("MYSQL_PASSWD", &why));
	CHECK_STR(why, "PASSWD");
	CHECK(secret_name("GOOGLE_APPLICATION_CREDENTIALS", &why));
	CHECK_STR(why, "CREDENTIAL");
	CHECK(secret_name("client_secret", &why));
	CHECK_STR(why, "SECRET");
	CHECK(secret_name("HF_TOKEN", NULL));
	CHECK(!secret_name("NCCL_DEBUG", &why));
	CHECK(!secret_name("OMP_NUM_THREADS", &why));
	CHECK(!secret_name("PATH", &why));
	CHECK(!secret_name("", &why));
}

static void file_names_that_look_secret(void)
{
	const char *why = NULL;
	CHECK(secret_file_name(".env", &why));
	CHECK_STR(why, ".env*");
	CHECK(secret_file_name("deploy/.env.production", &why));
	CHECK(secret_file_name("certs/server.PEM", &why));
	CHECK_STR(why, "*.pem");
	CHECK(secret_file_name("key.pem", NULL));
	CHECK(secret_file_name("tls/site.key", &why));
	CHECK_STR(why, "*.key");
	CHECK(secret_file_name("id_ed25519", &why));
	CHECK_STR(why, "id_*");
	CHECK(secret_file_name("credentials.json", &why));
	CHECK(secret_file_name("hf_token.txt", &why));
	CHECK_STR(why, "*token*");
	CHECK(secret_file_name("home/.ssh/config", &why));
	CHECK_STR(why, ".ssh");
	CHECK(secret_file_name(".aws/config", &why));
	CHECK(!secret_file_name("src/train.py", &why));
	CHECK(!secret_file_name("environment.yml", &why));
	CHECK(!secret_file_name("notes/keys.md", &why));
	CHECK(!secret_file_name("my.ssh/x", &why));
}

/* what kind, where: *at is the offset of the secret's start */
static int found(const char *text, const char **why, size_t *at)
{
	return secret_content(text, strlen(text), why, at);
}

static void contents_that_look_secret(void)
{
	const char *why = NULL;
	size_t at = 99;
	CHECK(found("x\n-----BEGIN " "OPENSSH PRIVATE KEY-----\nabc\n", &why, &at) == 1);
	CHECK_STR(why, "a private key");
	CHECK(at == 2);
	CHECK(found("-----BEGIN " "PRIVATE KEY-----", &why, &at) == 1);
	CHECK(found("id = AKIA" "IOSFODNN7EXAMPLE;", &why, &at) == 1);
	CHECK_STR(why, "an AWS access key id");
	CHECK(at == 5);
	CHECK(found("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" "EXAMPLEKEY\n", &why,
		    &at) == 1);
	CHECK_STR(why, "an AWS secret access key");
	CHECK(found("token: ghp_" "abcdefghijklmnopqrstuvwxyz0123456789", &why, &at) == 1);
	CHECK_STR(why, "a GitHub token");
	CHECK(found("HF=hf_" "abcdefghijklmnopqrstuvwxyzABCDEF", &why, &at) == 1);
	CHECK_STR(why, "a Hugging Face token");
	CHECK(found("+SECRET_KEY=" "s3cr3tvalue\n", &why, &at) == 1);
	CHECK_STR(why, "a secret-named variable set to a literal value");
	CHECK(at == 0);
	CHECK(found("export API_TOKEN=\"" "abcd1234efgh\"\n", &why, &at) == 1);
	CHECK(found("x\r\nDB_PASSWORD=" "hunter2hunter2\r\n", &why, &at) == 1);
	CHECK(at == 3);
	/* the earliest of several is named */
	CHECK(found("A=AKIA" "IOSFODNN7EXAMPLE\n-----BEGIN " "RSA PRIVATE KEY-----\n", &why,
		    &at) == 1);
	CHECK_STR(why, "an AWS access key id");
}

static void contents_that_do_not(void)
{
	const char *why;
	size_t at;
	CHECK(found("", &why, &at) == 0);
	CHECK(found("SECRET_KEY = os.environ[\"SECRET_KEY\"]\n", &why, &at) == 0);
	CHECK(found("API_TOKEN=$API_TOKEN\n", &why, &at) == 0);
	CHECK(found("MAX_TOKENS=100000000\n", &why, &at) == 0);
	CHECK(found("KEY=abc\n", &why, &at) == 0);
	CHECK(found("tokenizer = AutoTokenizer.from_pretrained(name)\n", &why, &at) == 0);
	CHECK(found("-----BEGIN " "PUBLIC KEY-----\n", &why, &at) == 0);
	CHECK(found("the task-abcdefghijklmnopqrstuvwxyz ran", &why, &at) == 0);
	/* binary content with NUL bytes is scanned whole */
	static const char bin[] = "\0\1\2AKIA" "IOSFODNN7EXAMPLE";
	CHECK(secret_content(bin, sizeof bin - 1, &why, &at) == 1 && at == 3);
}

int main(void)
{
	RUN(names_that_look_secret);
	RUN(file_names_that_look_secret);
	RUN(contents_that_look_secret);
	RUN(contents_that_do_not);
	HARNESS_END();
}
