//! The cuda engine's module cache: loaded modules by their text, emptied only between engine
//! calls, never during one, so that no function handle a call has taken outlives its module.
//! (Emptying it when full inside a call unloaded the modules of the chunks loaded before in
//! the same batch: `modes-check` on the H200, 2026-11-29, launched 511 of those handles and
//! got CUDA_ERROR_INVALID_HANDLE.)

use std::collections::HashMap;

use api::fnv1a;

/// Loaded modules (`M`: a driver module; anything in the tests) keyed by their text.
pub(super) struct ModuleCache<M> {
    map: HashMap<u64, (String, M)>,
    /// Modules kept across calls; one call may load more (its own chunks and bisections).
    capacity: usize,
}

impl<M> ModuleCache<M> {
    pub fn new(capacity: usize) -> Self {
        ModuleCache { map: HashMap::new(), capacity }
    }

    /// At the start of an engine call: empty the cache if it is full. Every handle of the
    /// previous call is dead by then (its launches were waited for).
    pub fn make_room(&mut self) {
        if self.map.len() >= self.capacity {
            self.map.clear();
        }
    }

    /// The module for `text`, loaded with `load` on a miss. Never evicts.
    pub fn get_or_load<E>(&mut self, text: String, load: impl FnOnce(&str) -> Result<M, E>) -> Result<&M, E> {
        let key = fnv1a(text.as_bytes());
        let hit = self.map.get(&key).is_some_and(|(t, _)| *t == text);
        if !hit {
            let m = load(&text)?;
            self.map.insert(key, (text, m));
        }
        Ok(&self.map[&key].1)
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// Whether `text`'s module is loaded (the ptxas pool need not assemble it: a cached module
    /// never takes its cubin, which would stay in the pool).
    pub fn contains(&self, text: &str) -> bool {
        self.map.get(&fnv1a(text.as_bytes())).is_some_and(|(t, _)| t == text)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_counting(n: &mut u32) -> impl FnOnce(&str) -> Result<u32, ()> + '_ {
        move |_| {
            *n += 1;
            Ok(*n)
        }
    }

    #[test]
    fn a_call_that_loads_more_than_the_capacity_keeps_every_module_it_loaded() {
        let mut cache = ModuleCache::new(2);
        let mut loads = 0;
        cache.make_room();
        for k in 0..5 {
            cache.get_or_load(format!("module {k}"), load_counting(&mut loads)).unwrap();
        }
        assert_eq!(cache.len(), 5);
        // Still loaded: a second request in the same call is a hit, not a reload.
        assert_eq!(*cache.get_or_load("module 0".into(), load_counting(&mut loads)).unwrap(), 1);
        assert_eq!(loads, 5);
    }

    #[test]
    fn the_next_call_empties_a_full_cache_and_reloads_on_demand() {
        let mut cache = ModuleCache::new(2);
        let mut loads = 0;
        for k in 0..3 {
            cache.get_or_load(format!("module {k}"), load_counting(&mut loads)).unwrap();
        }
        cache.make_room();
        assert_eq!(cache.len(), 0);
        assert_eq!(*cache.get_or_load("module 0".into(), load_counting(&mut loads)).unwrap(), 4);
    }

    #[test]
    fn a_cache_below_capacity_is_kept_between_calls() {
        let mut cache = ModuleCache::new(4);
        let mut loads = 0;
        cache.get_or_load("a".into(), load_counting(&mut loads)).unwrap();
        cache.make_room();
        assert_eq!(*cache.get_or_load("a".into(), load_counting(&mut loads)).unwrap(), 1);
    }

    #[test]
    fn a_loaded_module_is_contained_until_the_cache_is_emptied() {
        let mut cache = ModuleCache::new(1);
        let mut loads = 0;
        assert!(!cache.contains("a"));
        cache.get_or_load("a".into(), load_counting(&mut loads)).unwrap();
        assert!(cache.contains("a") && !cache.contains("b"));
        cache.make_room();
        assert!(!cache.contains("a"));
    }

    #[test]
    fn a_failed_load_caches_nothing() {
        let mut cache: ModuleCache<u32> = ModuleCache::new(4);
        assert!(cache.get_or_load("bad".into(), |_| Err::<u32, &str>("jit error")).is_err());
        assert_eq!(cache.len(), 0);
    }
}
