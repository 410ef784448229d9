package cli

import "golang.org/x/sys/unix"

// virtualFileSystems are the kernel's file systems that show its state
// as files (/proc, /sys and their kin): none takes a new file, so an
// output there fails with a cause that says nothing of why ("no such
// file or directory" in /proc/self, which exists).
var virtualFileSystems = map[uint32]string{
	unix.PROC_SUPER_MAGIC:    "proc",
	unix.SYSFS_MAGIC:         "sysfs",
	unix.CGROUP_SUPER_MAGIC:  "cgroup",
	unix.CGROUP2_SUPER_MAGIC: "cgroup2",
	unix.DEBUGFS_MAGIC:       "debugfs",
	unix.TRACEFS_MAGIC:       "tracefs",
	unix.SECURITYFS_MAGIC:    "securityfs",
	unix.BPF_FS_MAGIC:        "bpf",
	unix.EFIVARFS_MAGIC:      "efivarfs",
	unix.PSTOREFS_MAGIC:      "pstore",
	unix.DEVPTS_SUPER_MAGIC:  "devpts",
}

// virtualFileSystem names the kernel's virtual file system that dir is
// on, or is "" for any other (or when dir cannot be looked at: the
// caller's own checks say why).
func virtualFileSystem(dir string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return ""
	}
	return virtualFileSystems[uint32(st.Type)]
}
