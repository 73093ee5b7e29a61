//! The fetch cache: pages already fetched, by the URL string the model gave (Claude Code's
//! `URL_CACHE`: an LRU of 15 minutes and 50 MB of content).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::fetch::Page;

struct Entry {
    page: Page,
    stored: Instant,
    used: u64,
}

/// A size-bounded cache with a time to live, evicting the least recently used entry first.
/// Sizes are the cached text's length in bytes.
pub struct PageCache {
    ttl: Duration,
    max_bytes: usize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    bytes: usize,
    clock: u64,
}

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("PageCache")
            .field("ttl", &self.ttl)
            .field("max_bytes", &self.max_bytes)
            .field("entries", &inner.entries.len())
            .field("bytes", &inner.bytes)
            .finish()
    }
}

impl PageCache {
    /// An empty cache keeping entries for `ttl` and at most `max_bytes` of text (0 = no cache).
    pub fn new(ttl: Duration, max_bytes: usize) -> Self {
        Self { ttl, max_bytes, inner: Mutex::new(Inner::default()) }
    }

    /// The page cached for `url`, if it is younger than the time to live.
    pub fn get(&self, url: &str) -> Option<Page> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.clock += 1;
        let clock = inner.clock;
        let expired = match inner.entries.get_mut(url) {
            None => return None,
            Some(entry) if entry.stored.elapsed() <= self.ttl => {
                entry.used = clock;
                return Some(entry.page.clone());
            }
            Some(_) => true,
        };
        if expired && let Some(old) = inner.entries.remove(url) {
            inner.bytes -= old.page.size();
        }
        None
    }

    /// Caches `page` for `url`, evicting the least recently used entries to stay under the size
    /// bound. A page larger than the whole bound is not cached.
    pub fn put(&self, url: &str, page: Page) {
        let size = page.size();
        if size > self.max_bytes {
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(old) = inner.entries.remove(url) {
            inner.bytes -= old.page.size();
        }
        while inner.bytes + size > self.max_bytes {
            let Some(oldest) = inner.entries.iter().min_by_key(|(_, entry)| entry.used).map(|(key, _)| key.clone())
            else {
                break;
            };
            if let Some(old) = inner.entries.remove(&oldest) {
                inner.bytes -= old.page.size();
            }
        }
        inner.clock += 1;
        let used = inner.clock;
        inner.bytes += size;
        inner.entries.insert(url.to_owned(), Entry { page, stored: Instant::now(), used });
    }

    /// Number of cached pages.
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> Page {
        Page {
            text: text.to_owned(),
            content_type: "text/plain".to_owned(),
            bytes: text.len() as u64,
            code: 200,
            code_text: "OK".to_owned(),
            final_url: "https://example.com/".to_owned(),
            redirected: false,
            capped: false,
        }
    }

    #[test]
    fn least_recently_used_goes_first() {
        let cache = PageCache::new(Duration::from_secs(60), 10);
        cache.put("a", page("aaaa"));
        cache.put("b", page("bbbb"));
        assert!(cache.get("a").is_some());
        cache.put("c", page("cccc"));
        assert!(cache.get("a").is_some());
        assert!(cache.get("b").is_none(), "b was the least recently used");
        assert!(cache.get("c").is_some());
        cache.put("huge", page("01234567890"));
        assert!(cache.get("huge").is_none(), "larger than the bound");
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn entries_expire() {
        let cache = PageCache::new(Duration::ZERO, 100);
        cache.put("a", page("aaaa"));
        // tidy:allow-sleep the time to live running out is what is tested.
        std::thread::sleep(Duration::from_millis(5));
        assert!(cache.get("a").is_none());
        assert!(cache.is_empty());
    }
}
