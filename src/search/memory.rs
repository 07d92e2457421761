//! The machine's physical memory, so that the search tree never reserves
//! more than the machine can hold.
//!
//! On Linux the figures come from `/proc/meminfo`. Elsewhere they are
//! unknown, and the only check left is the allocator's own refusal (which
//! systems that do not overcommit memory, such as Windows, give reliably).

/// Physical memory, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Memory {
    /// All of it.
    pub total: u64,
    /// What new allocations can get without swapping (`MemAvailable`).
    pub available: u64,
}

/// The machine's memory now, or `None` where it cannot be read.
pub(crate) fn probe() -> Option<Memory> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .as_deref()
            .and_then(parse_meminfo)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Reads `MemTotal` and `MemAvailable` (kernels before 3.14 lack the
/// latter: `MemFree` then stands in) from the text of `/proc/meminfo`.
fn parse_meminfo(text: &str) -> Option<Memory> {
    let field = |name: &str| {
        text.lines().find_map(|line| {
            let value = line.strip_prefix(name)?.strip_prefix(':')?.trim();
            value.strip_suffix("kB")?.trim().parse::<u64>().ok()
        })
    };
    let total = field("MemTotal")?;
    let available = field("MemAvailable").or_else(|| field("MemFree"))?;
    Some(Memory {
        total: total.saturating_mul(1024),
        available: available.min(total).saturating_mul(1024),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_meminfo() {
        let text = "MemTotal:       24684084 kB\nMemFree:        12512572 kB\n\
                    MemAvailable:   24190984 kB\nBuffers:           20444 kB\n";
        assert_eq!(
            parse_meminfo(text),
            Some(Memory {
                total: 24684084 * 1024,
                available: 24190984 * 1024
            })
        );
        let old_kernel = "MemTotal: 2048 kB\nMemFree: 1024 kB\n";
        assert_eq!(parse_meminfo(old_kernel).unwrap().available, 1024 * 1024);
        assert_eq!(parse_meminfo("MemFree: 1024 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: lots\n"), None);
        assert_eq!(parse_meminfo(""), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn probe_reads_this_machine() {
        let m = probe().expect("/proc/meminfo is readable");
        assert!(m.total > 0 && m.available <= m.total);
    }
}
