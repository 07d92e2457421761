//! Why the searcher could not be set up as asked.

/// An error from [`Searcher::new`](super::Searcher::new) or
/// [`Searcher::set_options`](super::Searcher::set_options). When one is
/// returned, the searcher is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// Zero search threads were asked for.
    #[error("threads must be at least 1")]
    NoThreads,
    /// Zero MiB of hash was asked for.
    #[error("hash must be at least 1 MiB")]
    NoHash,
    /// The operating system refused to start the search threads.
    #[error("cannot start {threads} threads: {source}")]
    ThreadPool {
        /// The threads asked for.
        threads: usize,
        /// The thread pool's error.
        #[source]
        source: rayon::ThreadPoolBuildError,
    },
    /// The memory for a search tree could not be reserved.
    #[error("cannot allocate a search tree of {mib} MiB")]
    TreeAlloc {
        /// The tree's size, in MiB (rounded).
        mib: u64,
    },
}
