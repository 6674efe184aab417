//! Union-find over cells plus the four board edges, with rollback for undo.
//!
//! Union by size without path compression keeps every `find` within O(log n) steps and lets
//! the last unions be taken back exactly, in reverse order.

/// Disjoint sets of node ids `0..len`, with a log of unions for rollback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnionFind {
    parent: Vec<u16>,
    size: Vec<u16>,
    /// The roots attached under another root, most recent last.
    log: Vec<u16>,
}

impl UnionFind {
    /// `len` singleton sets.
    pub fn new(len: usize) -> Self {
        UnionFind {
            parent: (0..len as u16).collect(),
            size: vec![1; len],
            log: Vec::new(),
        }
    }

    /// The representative of `node`'s set.
    #[inline]
    pub fn find(&self, mut node: u16) -> u16 {
        while self.parent[node as usize] != node {
            node = self.parent[node as usize];
        }
        node
    }

    /// Whether `a` and `b` are in the same set.
    #[inline]
    pub fn connected(&self, a: u16, b: u16) -> bool {
        self.find(a) == self.find(b)
    }

    /// Merges the sets of `a` and `b`; returns whether they were apart (a union was logged).
    pub fn union(&mut self, a: u16, b: u16) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        let (small, large) = if self.size[ra as usize] < self.size[rb as usize] {
            (ra, rb)
        } else {
            (rb, ra)
        };
        self.parent[small as usize] = large;
        self.size[large as usize] += self.size[small as usize];
        self.log.push(small);
        true
    }

    /// Takes back the last `count` unions.
    pub fn rollback(&mut self, count: usize) {
        for _ in 0..count {
            let small = self.log.pop().expect("rollback past the first union");
            let large = self.parent[small as usize];
            self.size[large as usize] -= self.size[small as usize];
            self.parent[small as usize] = small;
        }
    }

    /// The same sets with an empty log: a copy that cannot roll back past its start.
    pub fn without_log(&self) -> Self {
        UnionFind {
            parent: self.parent.clone(),
            size: self.size.clone(),
            log: Vec::new(),
        }
    }

    /// Makes the unions so far permanent (they can no longer be rolled back).
    pub fn forget_log(&mut self) {
        self.log.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_and_rollback() {
        let mut uf = UnionFind::new(5);
        assert!(uf.union(0, 1));
        assert!(uf.union(2, 3));
        assert!(!uf.union(1, 0));
        assert!(uf.union(1, 3));
        assert!(uf.connected(0, 2));
        uf.rollback(1);
        assert!(!uf.connected(0, 2));
        assert!(uf.connected(2, 3));
        uf.rollback(2);
        assert_eq!(uf, UnionFind::new(5));
    }
}
