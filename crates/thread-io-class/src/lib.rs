//! The calling thread's I/O scheduling class: `ioprio_set(2)` and `ioprio_get(2)` on Linux.
//!
//! # Why by hand
//!
//! Neither the standard library nor `rustix` wraps these two system calls, and Solescope's crate
//! forbids `unsafe`. The `ioprio` crate does wrap them, but it was last released in 2021 and
//! pins `nix` 0.21, which holds `bitflags` 1 below 1.3 for the whole dependency tree. This crate
//! is the two calls alone, each one `unsafe` block over `libc::syscall` with fixed integer
//! arguments.
//!
//! Off Linux, [`set_this_thread`] does nothing and [`this_thread`] answers `None`.

/// An I/O scheduling class; the values are `IOPRIO_CLASS_*` of `linux/ioprio.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoClass {
    /// No class set: the thread's CPU nice value decides (`IOPRIO_CLASS_NONE`).
    None = 0,
    /// Real time (`IOPRIO_CLASS_RT`); setting it needs `CAP_SYS_ADMIN`.
    RealTime = 1,
    /// Best effort, the default (`IOPRIO_CLASS_BE`).
    BestEffort = 2,
    /// Served when no other request waits (`IOPRIO_CLASS_IDLE`).
    Idle = 3,
}

#[cfg(target_os = "linux")]
mod linux {
    use super::IoClass;

    /// `IOPRIO_WHO_PROCESS`: `who` is a thread id, 0 for the calling thread.
    const WHO_PROCESS: libc::c_long = 1;
    const CLASS_SHIFT: u32 = 13;

    pub(super) fn set(class: IoClass) -> std::io::Result<()> {
        // Level 4 (the middle of 0-7) for the classes that have levels; the idle class has none.
        let level = if matches!(class, IoClass::RealTime | IoClass::BestEffort) {
            4
        } else {
            0
        };
        let value = (class as libc::c_long) << CLASS_SHIFT | level;
        // SAFETY: `ioprio_set(which, who, ioprio)` takes three integers and touches no memory
        // of the caller; a bad value is answered with `EINVAL`.
        let result = unsafe { libc::syscall(libc::SYS_ioprio_set, WHO_PROCESS, 0, value) };
        if result == -1 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    pub(super) fn get() -> std::io::Result<IoClass> {
        // SAFETY: `ioprio_get(which, who)` takes two integers and touches no memory of the
        // caller.
        let result = unsafe { libc::syscall(libc::SYS_ioprio_get, WHO_PROCESS, 0) };
        if result == -1 {
            return Err(std::io::Error::last_os_error());
        }
        let class = result >> CLASS_SHIFT;
        Ok([IoClass::RealTime, IoClass::BestEffort, IoClass::Idle]
            .into_iter()
            .find(|&known| known as libc::c_long == class)
            .unwrap_or(IoClass::None))
    }
}

/// Puts the calling thread's I/O in `class` (its own reads, and the writes it waits for).
///
/// # Errors
///
/// What the kernel answers (`EPERM` for the real-time class without the capability).
pub fn set_this_thread(class: IoClass) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    return linux::set(class);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = class;
        Ok(())
    }
}

/// The calling thread's I/O class; `None` where the system has no such notion.
///
/// # Errors
///
/// What the kernel answers.
pub fn this_thread() -> std::io::Result<Option<IoClass>> {
    #[cfg(target_os = "linux")]
    return linux::get().map(Some);
    #[cfg(not(target_os = "linux"))]
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_thread_put_in_the_idle_class_reads_it_back_and_others_keep_theirs() {
        let before = this_thread().expect("class read");
        std::thread::spawn(|| {
            set_this_thread(IoClass::Idle).expect("idle class set");
            assert_eq!(this_thread().expect("class read"), Some(IoClass::Idle));
            set_this_thread(IoClass::BestEffort).expect("best effort set");
            assert_eq!(
                this_thread().expect("class read"),
                Some(IoClass::BestEffort)
            );
        })
        .join()
        .expect("thread");
        assert_eq!(this_thread().expect("class read"), before);
        assert_ne!(before, Some(IoClass::Idle));
    }
}
