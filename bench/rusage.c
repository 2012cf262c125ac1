/*
 * rusage.c - the peak RSS of one run of a command, for examples/bench_proc.rs.
 *
 *   rusage PROGRAM [ARG...]     prints "MAXRSS_KB EXIT_STATUS MINFLT" on stdout
 *
 * fork + execv + wait4: ru_maxrss of the child, in KiB, and its minor page faults
 * (ru_minflt; bench/instructions.sh reports them). The command's stdin, stdout
 * and stderr are /dev/null. The kernel counts the child's image before the exec in
 * ru_maxrss too (exec records the old mm's high-water mark), so this program is built
 * static against musl (bench/run.sh: musl-gcc -static) to keep that image small: a few
 * dozen KiB, far below any command measured. Rust's standard library offers no wait4
 * or getrusage, and the crate keeps `unsafe` out of its examples; hence C.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rusage PROGRAM [ARG...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 2;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[1], argv + 1);
		_exit(127);
	}
	struct rusage ru;
	int status;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("rusage: wait4");
		return 2;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("%ld %d %ld\n", ru.ru_maxrss, code, ru.ru_minflt);
	return 0;
}
