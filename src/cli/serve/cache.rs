//! A bounded answer cache: answers keyed by their validated request, kept
//! until their bytes pass a budget, then dropped oldest first. Tables never
//! change while the server runs, so an answer never goes stale; FIFO is
//! enough because the page asks again for what is on screen, not at random.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;

use axum::body::Bytes;

/// Answers by key, at most `budget` bytes of them.
pub(super) struct Cache<K> {
    inner: Mutex<Inner<K>>,
    budget: usize,
}

struct Inner<K> {
    answers: HashMap<K, Bytes>,
    order: VecDeque<K>,
    bytes: usize,
}

impl<K: Hash + Eq + Clone> Cache<K> {
    /// An empty cache holding up to `budget` bytes of answers.
    pub(super) fn new(budget: usize) -> Cache<K> {
        Cache {
            inner: Mutex::new(Inner {
                answers: HashMap::new(),
                order: VecDeque::new(),
                bytes: 0,
            }),
            budget,
        }
    }

    /// The answer kept for `key`, if any (a cheap reference-counted copy).
    pub(super) fn get(&self, key: &K) -> Option<Bytes> {
        self.lock().answers.get(key).cloned()
    }

    /// Keeps `answer` for `key`, dropping the oldest answers to stay within
    /// the budget. An answer over a sixteenth of the budget is not kept: it
    /// would push out many small ones.
    pub(super) fn insert(&self, key: K, answer: Bytes) {
        if answer.len() > self.budget / 16 {
            return;
        }
        let mut inner = self.lock();
        if inner.answers.contains_key(&key) {
            return;
        }
        while inner.bytes + answer.len() > self.budget {
            let Some(old) = inner.order.pop_front() else {
                break;
            };
            if let Some(dropped) = inner.answers.remove(&old) {
                inner.bytes -= dropped.len();
            }
        }
        inner.bytes += answer.len();
        inner.order.push_back(key.clone());
        inner.answers.insert(key, answer);
    }

    /// The lock, also after a panic elsewhere: the maps stay consistent
    /// because every update above completes without panicking.
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<K>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_answers_within_the_budget_dropping_the_oldest() {
        let cache = Cache::new(160);
        for k in 0..5u32 {
            cache.insert(k, Bytes::from(vec![b'x'; 10]));
        }
        assert!((0..5).all(|k| cache.get(&k).is_some()));
        for k in 5..20u32 {
            cache.insert(k, Bytes::from(vec![b'x'; 10]));
        }
        // 16 answers of 10 bytes fit: 4..20 stay, 0..4 are gone.
        assert!((0..4).all(|k| cache.get(&k).is_none()));
        assert!((4..20).all(|k| cache.get(&k).is_some()));
        // Too large to keep.
        cache.insert(99, Bytes::from(vec![b'x'; 11]));
        assert!(cache.get(&99).is_none());
        assert_eq!(cache.get(&19).as_deref(), Some(&[b'x'; 10][..]));
    }
}
