// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: tp_btf_floor PROG.bpf.o COMMAND [ARGS]
 * Loads and attaches the programs of PROG.bpf.o, runs COMMAND, detaches.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int status = 1;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: %s PROG.bpf.o COMMAND [ARGS]\n", argv[0]);
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "cannot attach %s\n", bpf_program__name(prog));
			return 1;
		}
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		status = WEXITSTATUS(status);
	bpf_object__close(obj);
	return status;
}
