//! The verbs a server has running on the runtime's blocking pool, counted, so the server can
//! end once they are done without waiting on the pool's other thread: the one blocked reading
//! stdin, which only the client's closing it would end.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
pub struct Running {
    count: Mutex<usize>,
    idle: Condvar,
}

/// One verb's place among those running, given back when dropped (the verb returned or
/// panicked).
pub struct Entered(Arc<Running>);

impl Running {
    fn count(&self) -> MutexGuard<'_, usize> {
        // A count is whole even if a holder panicked: nothing is left half-updated.
        self.count.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a verb in until the returned guard drops.
    pub fn enter(self: &Arc<Running>) -> Entered {
        *self.count() += 1;
        Entered(self.clone())
    }

    /// Waits until no verb runs, at most `limit`; whether none does.
    pub fn wait_idle(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut count = self.count();
        while *count > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            count = match self.idle.wait_timeout(count, left) {
                Ok((count, _)) => count,
                Err(p) => p.into_inner().0,
            };
        }
        true
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut count = self.0.count();
        *count -= 1;
        if *count == 0 {
            self.0.idle.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_for_the_verbs_running_and_no_longer_than_its_limit() {
        let running = Arc::new(Running::default());
        assert!(running.wait_idle(Duration::ZERO));
        let entered = running.enter();
        assert!(!running.wait_idle(Duration::from_millis(20)));
        let verb = std::thread::spawn(move || drop(entered));
        // Far longer than the verb takes: only its end makes the wait return in time.
        assert!(running.wait_idle(Duration::from_secs(600)));
        verb.join().unwrap();
    }
}
