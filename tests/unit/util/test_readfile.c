/* The bounded file reader and the file stamp: what slurmctld's reader
 * thread and the configuration parsers rely on. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "psiplace/readfile.h"

static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/psiplace-readfile-XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(readfile, .init = make_dir, .fini = remove_dir);

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

Test(readfile, reads_a_regular_file_whole_and_nul_terminated)
{
	char path[96], *text;
	size_t len;
	int e = -1;
	psiplace_error_t err;

	snprintf(path, sizeof(path), "%s/f", dir);
	write_file(path, "n1 load1=1\nn2", 13);
	cr_assert_eq(psiplace_read_file(path, 100, PSIPLACE_READ_REGULAR, &text, &len, &e, &err), 0);
	cr_assert_eq(len, 13);
	cr_assert_str_eq(text, "n1 load1=1\nn2");
	cr_assert_eq(e, 0);
	free(text);
}

Test(readfile, a_file_of_exactly_max_bytes_is_read_one_more_is_refused_before_reading)
{
	char path[96], *text = (char *)1;
	size_t len;
	int e = 0;
	psiplace_error_t err;

	snprintf(path, sizeof(path), "%s/f", dir);
	write_file(path, "0123456789", 10);
	cr_assert_eq(psiplace_read_file(path, 10, PSIPLACE_READ_REGULAR, &text, &len, &e, &err), 0);
	cr_assert_eq(len, 10);
	free(text);
	cr_assert_eq(psiplace_read_file(path, 9, PSIPLACE_READ_REGULAR, &text, &len, &e, &err), -1);
	cr_assert_eq(e, EFBIG);
	cr_assert_null(text);
	cr_assert(strstr(err.text, "10 bytes, more than the 9 accepted"), "%s", err.text);
	cr_assert(strncmp(err.text, path, strlen(path)) == 0, "%s", err.text);
}

Test(readfile, a_fifo_without_writer_is_refused_at_once_when_regular_files_are_asked_for)
{
	char path[96], *text;
	size_t len;
	int e = 0;
	psiplace_error_t err;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	/* A blocking open would hang here forever: no writer ever comes. */
	cr_assert_eq(psiplace_read_file(path, 100, PSIPLACE_READ_REGULAR, &text, &len, &e, &err), -1);
	cr_assert_eq(e, EINVAL);
	cr_assert(strstr(err.text, ": not a regular file"), "%s", err.text);
}

Test(readfile, a_directory_and_a_missing_file_are_errors_naming_the_path)
{
	char path[96], *text;
	size_t len;
	int e = 0;
	psiplace_error_t err;

	cr_assert_eq(psiplace_read_file(dir, 100, PSIPLACE_READ_REGULAR, &text, &len, &e, &err), -1);
	cr_assert(strstr(err.text, "not a regular file"), "%s", err.text);
	snprintf(path, sizeof(path), "%s/none", dir);
	cr_assert_eq(psiplace_read_file(path, 100, 0, &text, &len, &e, &err), -1);
	cr_assert_eq(e, ENOENT);
	cr_assert(strstr(err.text, "No such file or directory"), "%s", err.text);
}

Test(readfile, without_the_flag_a_pipe_is_read_to_its_end_bounded)
{
	int fd[2];
	char path[64], *text;
	size_t len;
	psiplace_error_t err;

	cr_assert_eq(pipe(fd), 0);
	cr_assert_eq(write(fd[1], "abcdef", 6), 6);
	close(fd[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd[0]);
	cr_assert_eq(psiplace_read_file(path, 4, 0, &text, &len, NULL, &err), 0);
	/* max + 1 bytes: the caller sees the input was too large */
	cr_assert_eq(len, 5);
	cr_assert_str_eq(text, "abcde");
	free(text);
	close(fd[0]);
}

Test(readfile, the_stamp_reports_each_change_once_and_a_vanished_file_as_a_change)
{
	char path[96];
	psiplace_error_t err;
	struct psiplace_filestamp st = { 0 };
	bool changed;

	snprintf(path, sizeof(path), "%s/metrics", dir);
	write_file(path, "", 0);
	cr_assert_eq(psiplace_file_changed(path, &st, &changed, &err), 0);
	cr_assert(changed);
	cr_assert_eq(psiplace_file_changed(path, &st, &changed, &err), 0);
	cr_assert(!changed);
	write_file(path, "n1 load1=1\n", 11);
	cr_assert_eq(psiplace_file_changed(path, &st, &changed, &err), 0);
	cr_assert(changed);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(psiplace_file_changed(path, &st, &changed, &err), -1);
	cr_assert(changed, "the file went away: what was read from it no longer holds");
	cr_assert(!st.valid);
	cr_assert_eq(psiplace_file_changed(path, &st, &changed, &err), -1);
	cr_assert(!changed, "still missing: reported once");
	/* replaced by a FIFO: the mode is part of the stamp */
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(psiplace_file_changed(path, &st, &changed, &err), 0);
	cr_assert(changed);
}
