/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The cgroup id of a task as perf names cgroups (read_cgroup_id()): the
 * kernfs id of its cgroup v2 cgroup or, with cgroup v1, of its cgroup in the
 * perf_event hierarchy.  For BPF programs, after vmlinux.h.
 */
#ifndef __PERF_BPF_SKEL_TASK_CGROUP_ID_H
#define __PERF_BPF_SKEL_TASK_CGROUP_ID_H

#include <bpf/bpf_core_read.h>

static inline __u64 task_cgroup_id(struct task_struct *task, bool cgroup_v1)
{
	struct cgroup *cgrp;
	int subsys_id;

	if (!cgroup_v1)
		return BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);

#if __has_builtin(__builtin_preserve_enum_value)
	subsys_id = bpf_core_enum_value(enum cgroup_subsys_id, perf_event_cgrp_id);
#else
	subsys_id = perf_event_cgrp_id;
#endif
	cgrp = BPF_CORE_READ(task, cgroups, subsys[subsys_id], cgroup);
	return BPF_CORE_READ(cgrp, kn, id);
}

#endif /* __PERF_BPF_SKEL_TASK_CGROUP_ID_H */
