#if canImport(Glibc)
import Glibc
#endif

/// File descriptors as the process may open them: the soft limit, raised to the hard one at start, and the
/// share kept free for the store, the logs and libwebsockets' own. A connection accepted onto a
/// descriptor inside that reserve is answered 503 and closed at once, so the process never reaches
/// `EMFILE`, where libwebsockets would retry its accept in a busy loop.
struct DescriptorBudget: Equatable {
    /// The soft limit on open descriptors (`RLIMIT_NOFILE`) once raised.
    let limit: Int
    /// Descriptors at or above this number are in the reserve.
    let ceiling: Int

    init(limit: Int) {
        self.limit = limit
        ceiling = limit - Self.reserve(limit)
    }

    /// One sixteenth of the limit, at least 16 and at most 128.
    static func reserve(_ limit: Int) -> Int { min(128, max(16, limit / 16)) }

    /// Raises the soft limit to the hard one (as far as the process may) and returns the budget.
    static func raised() -> DescriptorBudget {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return DescriptorBudget(limit: 1024) }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            // A hard limit of "unlimited" cannot be the soft one: stay within what the kernel allows.
            raised.rlim_cur = min(limits.rlim_max, 1 << 20)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        return DescriptorBudget(limit: Int(clamping: limits.rlim_cur))
    }

    /// Whether a freshly accepted descriptor leaves too few free.
    func exhausted(by fd: Int32) -> Bool { Int(fd) >= ceiling }
}
