//! Sharding a run over a CI matrix: `run --shard K/N` keeps the cases whose id hashes to shard
//! K of N, and its JSON report says so (the `shard` key), so that `report merge` can join the
//! N reports into the report one unsharded run would have written ([`super::merge`]).
//!
//! The split is by case id: a case belongs to shard `fnv1a64(id) % N + 1`. It depends on the id
//! and N alone, so adding or removing other cases (a new `--cases` folder, a filter) never moves
//! a case to another shard, and every machine of a matrix computes the same split without
//! talking to the others. Shard sizes vary around `cases / N`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// One part of a split: shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1 to `count`.
    pub index: u32,
    /// How many shards the cases are split into (at least 1).
    pub count: u32,
}

impl Shard {
    /// Whether the case `id` belongs to this shard.
    pub fn selects(&self, id: &str) -> bool {
        fnv1a(id.as_bytes()) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 ≤ K ≤ N: `1/2`, `2/2`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let form = || format!("{text:?} is not K/N (shard K of N, 1 ≤ K ≤ N: 1/2, 2/2)");
        let (k, n) = text.split_once('/').ok_or_else(form)?;
        let number = |part: &str| part.trim().parse::<u32>().map_err(|_| form());
        let (index, count) = (number(k)?, number(n)?);
        if count == 0 {
            return Err(format!("{text:?}: N is the number of shards, at least 1"));
        }
        if index == 0 || index > count {
            return Err(format!(
                "{text:?}: K counts from 1 to N ({count}); the shards of {count} are 1/{count} .. {count}/{count}"
            ));
        }
        Ok(Shard { index, count })
    }
}

/// What a sharded report records beside its cases: which shard it is, and of which selection,
/// so that merging refuses shards of different runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// Which shard (1-based).
    pub index: u32,
    /// Of how many.
    pub count: u32,
    /// How many cases the whole selection (every shard together) has.
    pub of_cases: usize,
    /// A fingerprint of the whole selection's case ids ([`selection_digest`]).
    pub selection: String,
}

impl ShardInfo {
    /// `shard` of the selection whose case ids (all shards) are `ids`.
    pub fn new<'a>(shard: Shard, ids: impl IntoIterator<Item = &'a str>) -> Self {
        let ids: Vec<&str> = ids.into_iter().collect();
        ShardInfo {
            index: shard.index,
            count: shard.count,
            of_cases: ids.len(),
            selection: selection_digest(ids),
        }
    }

    /// `K/N`.
    pub fn shard(&self) -> Shard {
        Shard {
            index: self.index,
            count: self.count,
        }
    }
}

/// 16 hex digits naming a set of case ids, whatever their order: equal digests mean (but for
/// a 64-bit collision) the same selection.
pub fn selection_digest<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let mut ids: Vec<&str> = ids.into_iter().collect();
    ids.sort_unstable();
    format!("{:016x}", fnv1a(ids.join("\n").as_bytes()))
}

/// FNV-1a, 64 bits: fixed, so the split is the same on every machine and in every version of
/// this crate (std's hashers are seeded or may change).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n_and_rejects_the_rest_with_the_form() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/2", "3/2", "1/0", "junk", "1/", "/2", "-1/2", "1/2/3"] {
            let error = bad.parse::<Shard>().unwrap_err();
            assert!(error.contains(&format!("{bad:?}")), "{bad}: {error}");
        }
        assert!("0/2".parse::<Shard>().unwrap_err().contains("from 1 to N"));
        assert!("1/0".parse::<Shard>().unwrap_err().contains("at least 1"));
    }

    #[test]
    fn every_id_is_in_exactly_one_shard_and_stays_there_when_others_come() {
        let ids: Vec<String> = (0..200).map(|i| format!("folder/case-{i}")).collect();
        for count in 1..=5 {
            let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
            for id in &ids {
                let owners = shards.iter().filter(|s| s.selects(id)).count();
                assert_eq!(owners, 1, "{id} in {owners} of {count} shards");
            }
        }
        // The split is a function of the id: pinned, so that a change of hash is noticed (it
        // would move cases between the machines of a running matrix).
        let two = |id: &str| (1..=2).find(|&index| Shard { index, count: 2 }.selects(id));
        assert_eq!(
            [two("sse/final-result"), two("jsonrpc/wrong-id")],
            [Some(2), Some(1)]
        );
    }

    #[test]
    fn the_digest_names_the_set_not_its_order() {
        assert_eq!(selection_digest(["a", "b"]), selection_digest(["b", "a"]));
        assert_ne!(selection_digest(["a", "b"]), selection_digest(["a", "c"]));
    }
}
