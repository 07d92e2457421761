//! Why the searcher could not be set up as asked.

/// An error from [`Searcher::new`](super::Searcher::new) or
/// [`Searcher::set_options`](super::Searcher::set_options). When one is
/// returned, the searcher is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// Zero search threads were asked for.
    #[error("threads must be at least 1")]
    NoThreads,
    /// More search threads were asked for than the search allows.
    #[error("threads must be at most {max}, got {threads}")]
    TooManyThreads {
        /// The threads asked for.
        threads: usize,
        /// The most allowed ([`MAX_THREADS`](super::MAX_THREADS)).
        max: usize,
    },
    /// Zero MiB of hash was asked for.
    #[error("hash must be at least 1 MiB")]
    NoHash,
    /// The hash is more than the tree can index.
    #[error(
        "hash of {hash_mb} MiB is more than the {max_mb} MiB the search tree \
         can use; set less hash"
    )]
    TreeTooLarge {
        /// The hash asked for, in MiB.
        hash_mb: usize,
        /// The most the tree can use, in MiB.
        max_mb: u64,
    },
    /// The tree would need more memory than the machine can give.
    #[error(
        "hash of {hash_mb} MiB is more than this machine can hold: \
         {available_mb} MiB of memory available"
    )]
    NotEnoughMemory {
        /// The hash asked for, in MiB.
        hash_mb: usize,
        /// The memory the tree could have, in MiB.
        available_mb: u64,
    },
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
