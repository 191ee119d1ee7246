#!/bin/bash
# perf trace --bpf-summary names 32-bit syscalls
# SPDX-License-Identifier: GPL-2.0
# A 32-bit x86 program makes 7 write() calls failing with EBADF and 5
# getppid() calls: i386 numbers 4 and 64, which are stat and semget on
# x86_64.  The summary, in BPF and in user space, must name them from the
# i386 table.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup trace_bpf_summary_compat
out="${tmpdir}/out"

skip() {
	echo "Skip: $1"
	exit 2
}

[ "$(uname -m)" = x86_64 ] || skip "32-bit compat syscalls are only checked on x86_64"
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-summary; then
	exit 2
fi

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
gcc -m32 -o "${tmpdir}/compat" "${tmpdir}/compat.c" 2>/dev/null ||
	skip "gcc -m32 cannot build a 32-bit program (install gcc-multilib)"
"${tmpdir}/compat" 2>/dev/null ||
	skip "this kernel cannot run 32-bit programs (CONFIG_IA32_EMULATION off or ia32_emulation=0)"

# row FILE NAME: the calls and errors of syscall NAME, or nothing
row() {
	awk -v name="$2" '$1 == name { print $2, $3; exit }' "$1"
}

for summary in --bpf-summary --no-bpf-summary; do
	for mode in total thread; do
		what="${summary} --summary-mode=${mode}"
		perf trace -s ${summary} --summary-mode=${mode} -o "${out}" -- "${tmpdir}/compat"
		expect_count "${what}: write: calls and errors" "7 7" "$(row "${out}" write)"
		expect_count "${what}: getppid: calls and errors" "5 0" "$(row "${out}" getppid)"
		expect_count "${what}: getppid named semget" "" "$(row "${out}" semget)"
	done
done
exit ${err}
