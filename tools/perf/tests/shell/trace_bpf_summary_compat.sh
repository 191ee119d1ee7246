#!/bin/bash
# perf trace -s names 32-bit syscalls
# SPDX-License-Identifier: GPL-2.0
# A 32-bit x86 program makes 7 write() calls failing with EBADF and 5
# getppid() calls: i386's numbers 4 and 64, which are stat and semget on
# x86_64.  The summary, in BPF and in user space, in total and thread
# mode, must name them from i386's table.

# err and tmpdir belong to lib/perf_check.sh (lib/bpf_summary.sh sources it)
# shellcheck disable=SC2034,SC2154

if [ "$(uname -m)" != x86_64 ]; then
	echo "Skip: 32-bit compat syscalls are told apart on x86_64 only"
	exit 2
fi
# shellcheck source=lib/bpf_summary.sh
. "$(dirname "$0")"/lib/bpf_summary.sh
bpf_summary_setup trace_bpf_summary_compat
out="${tmpdir}/out"

cat > "${tmpdir}/compat.c" <<'PROG'
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	for (int i = 0; i < 7; i++)
		syscall(SYS_write, -1, "x", 1);
	for (int i = 0; i < 5; i++)
		syscall(SYS_getppid);
	return 0;
}
PROG
if ! gcc -m32 -o "${tmpdir}/compat" "${tmpdir}/compat.c" 2>/dev/null; then
	echo "Skip: gcc -m32 cannot build a 32-bit program (install gcc-multilib)"
	exit 2
fi
if ! "${tmpdir}/compat"; then
	echo "Skip: this kernel runs no 32-bit programs (no IA32_EMULATION, or ia32_emulation=0)"
	exit 2
fi

# row FILE NAME: the calls and errors of syscall NAME, or nothing
row() {
	awk -v name="$2" '$1 == name { print $2, $3; exit }' "$1"
}

for summary in --bpf-summary --no-bpf-summary; do
	for mode in total thread; do
		what="${summary} --summary-mode=${mode}"
		perf trace -s ${summary} --errno-summary --summary-mode=${mode} -o "${out}" -- \
			"${tmpdir}/compat"
		expect_count "${what}: write: calls and errors" "7 7" "$(row "${out}" write)"
		expect_count "${what}: write: EBADF" 7 "$(awk '/^   [a-z]/ { row = $1 }
			row == "write" && $1 == "EBADF:" { print $2 }' "${out}")"
		expect_count "${what}: getppid: calls and errors" "5 0" "$(row "${out}" getppid)"
		expect_count "${what}: getppid named semget" "" "$(row "${out}" semget)"
	done
done

check_exit
