//! Lower priorities for the service's background threads, so that the requests being answered
//! get the CPU and the disk first.
//!
//! Two pieces of work run beside the requests after a start: the hit store read through into
//! the page cache (2 GB at a million products) or built, and the related-products index (a
//! scan of every product). After a restart with a cold page cache, both read the disk while the
//! first searches wait for their hits' records. (The warm-up no longer copies the records out:
//! the kernel reads them, `search::hits`.)
//!
//! Measured at a million products, restarts with the page cache evicted (`vmtouch -e`),
//! alternated, the first second's p99 at 8 connections of distinct queries: with the warm-up
//! thread in the idle I/O class, 42.5-69.2 ms (median 52.7) before and 41.2-48.8 ms (median
//! 45.9) after, six trials each. At nice 10 as well, the cold restarts gained a little more
//! (median 45.0 -> 38.8 ms), but a restart with the store cached lost: under load, the
//! warm-up's copying from the page cache, which must end before pages take the fast way, took
//! the whole first second. So the warm-up keeps the normal CPU priority; building the store,
//! saving the index and the related-products index do not.

/// Both lowered for the calling thread: [`lower_cpu_priority`] and [`idle_io_priority`].
pub(crate) fn lower_priorities() {
    lower_cpu_priority();
    idle_io_priority();
}

/// Lowers the calling thread's CPU priority to nice 10 (Linux keeps a nice value per thread).
pub(crate) fn lower_cpu_priority() {
    #[cfg(target_os = "linux")]
    if let Err(err) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10) {
        tracing::debug!("background thread at normal CPU priority: {err}");
    }
}

/// Puts the calling thread's reads in the idle I/O class: the disk serves them when no other
/// read waits. `mq-deadline` (since Linux 5.14) and BFQ honour the class; `mq-deadline` still
/// dispatches a request that waited `prio_aging_expire` (10 s by default), so the thread is
/// slowed under a steady load, never starved. Elsewhere the call does nothing.
pub(crate) fn idle_io_priority() {
    if let Err(err) = thread_io_class::set_this_thread(thread_io_class::IoClass::Idle) {
        tracing::debug!("background thread in the normal I/O class: {err}");
    }
}

#[cfg(test)]
mod tests {
    use thread_io_class::{IoClass, this_thread};

    /// The thread's nice value and I/O class, as the kernel reports them.
    #[cfg(target_os = "linux")]
    fn priorities() -> (i32, Option<IoClass>) {
        let nice = rustix::process::getpriority_process(Some(rustix::thread::gettid()))
            .expect("nice value read");
        (nice, this_thread().expect("class read"))
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_background_thread_runs_at_nice_10_in_the_idle_class_and_the_others_do_not() {
        let before = priorities();
        let background = std::thread::spawn(|| {
            super::lower_priorities();
            priorities()
        })
        .join()
        .expect("thread");
        assert_eq!(background, (10, Some(IoClass::Idle)));
        assert_eq!(priorities(), before);
        assert_ne!(before.1, Some(IoClass::Idle));
    }
}
