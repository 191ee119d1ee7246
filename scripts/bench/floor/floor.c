// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: floor [-F FREQ] PROG.bpf.o COMMAND [ARGS]
 *
 * Loads the programs of PROG.bpf.o, attaches them, runs COMMAND, detaches:
 * the floor a benchmark case is compared with, measured in the same run.
 * Tracing programs (tp_btf, raw_tp, tracepoint) attach where their section
 * says.  A perf_event program attaches, as perf record's sampling event
 * would carry it, to a cpu-clock event sampling COMMAND and its children
 * (inherit) FREQ times a second (default 999), with the sample type of
 * perf record -g; it is enabled when COMMAND starts (enable_on_exec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>

static int open_sampling_event(pid_t pid, unsigned long freq)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = freq;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.enable_on_exec = 1;
	return syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	unsigned long freq = 999;
	struct bpf_object *obj;
	struct bpf_program *prog;
	int go[2], status = 1, opt;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+F:")) != -1) {
		if (opt != 'F')
			goto usage;
		freq = strtoul(optarg, NULL, 0);
	}
	if (argc - optind < 2 || !freq)
		goto usage;
	obj = bpf_object__open_file(argv[optind], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "cannot load %s\n", argv[optind]);
		return 1;
	}
	if (pipe(go)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		char c;

		/* wait until the programs are attached */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[optind + 1], argv + optind + 1);
		_exit(127);
	}
	close(go[0]);
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link;

		if (bpf_program__type(prog) == BPF_PROG_TYPE_PERF_EVENT) {
			int fd = open_sampling_event(pid, freq);

			link = fd < 0 ? NULL : bpf_program__attach_perf_event(prog, fd);
		} else {
			link = bpf_program__attach(prog);
		}
		if (!link) {
			fprintf(stderr, "cannot attach %s\n", bpf_program__name(prog));
			kill(pid, SIGKILL);
			return 1;
		}
	}
	if (write(go[1], "", 1) != 1) {
		perror("write");
		return 1;
	}
	close(go[1]);
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		status = WEXITSTATUS(status);
	else
		status = 1;
	bpf_object__close(obj);
	return status;

usage:
	fprintf(stderr, "usage: %s [-F FREQ] PROG.bpf.o COMMAND [ARGS]\n", argv[0]);
	return 1;
}
