//! The processor level the programs are compiled for. On x86-64 the workspace targets
//! x86-64-v3 (AVX2, BMI1/2, FMA, LZCNT, MOVBE: `.cargo/config.toml`), processors from 2013
//! (Intel Haswell) and 2015 (AMD Excavator) on; Tsetlin Machine training runs 4-19% faster
//! than at the baseline level (BENCHMARKS.md). A processor without those features would stop
//! the program at its first such instruction with a bare "illegal instruction"; [`require`],
//! called first in every program, says instead which features are missing and how to build
//! for the processor at hand.

/// Exits with a message naming what is missing when this processor (or its operating
/// system) lacks a feature the program was compiled to use; returns otherwise (at once on
/// other architectures).
pub fn require() {
    #[cfg(target_arch = "x86_64")]
    {
        let cpuid = x86::Cpuid::read();
        let mut missing = x86::missing(&cpuid).peekable();
        if missing.peek().is_some() {
            x86::refuse(missing);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::io::Write;

    /// The CPUID registers that report the features of [`FEATURES`], and whether the
    /// operating system saves the AVX registers.
    #[derive(Clone, Copy, Debug)]
    pub(super) struct Cpuid {
        /// The feature words, indexed by [`Register`]; a leaf the processor lacks reads 0.
        pub words: [u32; 3],
        /// XCR0 has the SSE and AVX state bits (the OS saves the 256-bit registers).
        pub avx_state_saved: bool,
    }

    impl Cpuid {
        /// This processor's registers.
        // CPUID became a safe function in later toolchains than the oldest this builds with.
        #[allow(unused_unsafe)]
        pub fn read() -> Cpuid {
            use std::arch::x86_64::{__cpuid, __cpuid_count};
            // SAFETY (all CPUID reads): every x86-64 processor has the CPUID instruction,
            // and leaves above the maximum it reports (read first) are not asked.
            let max_leaf = unsafe { __cpuid(0) }.eax;
            let leaf1_ecx = unsafe { __cpuid(1) }.ecx;
            let leaf7_ebx = if max_leaf >= 7 {
                unsafe { __cpuid_count(7, 0) }.ebx
            } else {
                0
            };
            let max_extended = unsafe { __cpuid(0x8000_0000) }.eax;
            let extended_ecx = if max_extended >= 0x8000_0001 {
                unsafe { __cpuid(0x8000_0001) }.ecx
            } else {
                0
            };
            Cpuid {
                words: [leaf1_ecx, leaf7_ebx, extended_ecx],
                avx_state_saved: leaf1_ecx >> OSXSAVE & 1 == 1 && xcr0() & 0b110 == 0b110,
            }
        }
    }

    /// Leaf 1 ECX bit: the OS has enabled XGETBV and the extended state.
    const OSXSAVE: u32 = 27;

    /// XCR0, read only where [`OSXSAVE`] says XGETBV is enabled.
    fn xcr0() -> u64 {
        let (low, high): (u32, u32);
        // SAFETY: the caller has seen OSXSAVE set, so XGETBV with ECX 0 is defined; it only
        // reads the register into EDX:EAX.
        unsafe {
            std::arch::asm!("xgetbv", in("ecx") 0u32, out("eax") low, out("edx") high,
                options(nomem, nostack, preserves_flags));
        }
        (high as u64) << 32 | low as u64
    }

    /// Where CPUID reports a feature: the index of its word in [`Cpuid::words`].
    #[derive(Clone, Copy, Debug)]
    enum Register {
        /// Leaf 1, ECX.
        Ecx1,
        /// Leaf 7 (sub-leaf 0), EBX.
        Ebx7,
        /// Leaf 0x8000_0001, ECX.
        EcxExt,
    }

    use Register::{Ebx7, Ecx1, EcxExt};

    /// The features beyond the x86-64 baseline the build may use: (name, compiled in,
    /// register, bit).
    const FEATURES: [(&str, bool, Register, u32); 13] = [
        ("SSE3", cfg!(target_feature = "sse3"), Ecx1, 0),
        ("SSSE3", cfg!(target_feature = "ssse3"), Ecx1, 9),
        ("FMA", cfg!(target_feature = "fma"), Ecx1, 12),
        ("SSE4.1", cfg!(target_feature = "sse4.1"), Ecx1, 19),
        ("SSE4.2", cfg!(target_feature = "sse4.2"), Ecx1, 20),
        ("MOVBE", cfg!(target_feature = "movbe"), Ecx1, 22),
        ("POPCNT", cfg!(target_feature = "popcnt"), Ecx1, 23),
        ("AVX", cfg!(target_feature = "avx"), Ecx1, 28),
        ("F16C", cfg!(target_feature = "f16c"), Ecx1, 29),
        ("BMI1", cfg!(target_feature = "bmi1"), Ebx7, 3),
        ("AVX2", cfg!(target_feature = "avx2"), Ebx7, 5),
        ("BMI2", cfg!(target_feature = "bmi2"), Ebx7, 8),
        ("LZCNT", cfg!(target_feature = "lzcnt"), EcxExt, 5),
    ];

    /// The features the build uses that `cpuid` lacks, by name; the OS's saving of the AVX
    /// registers counts as one where the build uses AVX.
    pub(super) fn missing(cpuid: &Cpuid) -> impl Iterator<Item = &'static str> + '_ {
        let lacking = FEATURES
            .iter()
            .filter(move |&&(_, compiled, register, bit)| {
                compiled && cpuid.words[register as usize] >> bit & 1 == 0
            })
            .map(|&(name, ..)| name);
        let state = (cfg!(target_feature = "avx") && !cpuid.avx_state_saved)
            .then_some("AVX register saving by the operating system");
        lacking.chain(state)
    }

    /// Writes what is missing and how to build for this processor, then exits with status 1.
    /// Only std's precompiled writer runs here, nothing compiled for the missing features.
    #[cold]
    #[inline(never)]
    pub(super) fn refuse<'a>(missing: impl Iterator<Item = &'a str>) -> ! {
        let mut err = std::io::stderr().lock();
        let _ =
            err.write_all(b"this program was compiled for processor features that this one lacks:");
        for name in missing {
            let _ = err.write_all(b" ");
            let _ = err.write_all(name.as_bytes());
        }
        let _ = err.write_all(
            b"\nbuild for this processor with: \
              RUSTFLAGS=\"-C target-cpu=native\" cargo build --release\n",
        );
        std::process::exit(1);
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn with(leaf1_ecx: u32, leaf7_ebx: u32, extended_ecx: u32, saved: bool) -> Cpuid {
            Cpuid {
                words: [leaf1_ecx, leaf7_ebx, extended_ecx],
                avx_state_saved: saved,
            }
        }

        fn compiled_in() -> Vec<&'static str> {
            FEATURES.iter().filter(|f| f.1).map(|f| f.0).collect()
        }

        #[test]
        fn this_processor_runs_this_build() {
            // The tests run here, so every feature they were compiled for is present.
            let missing: Vec<_> = missing(&Cpuid::read()).collect();
            assert!(missing.is_empty(), "missing {missing:?}");
        }

        #[test]
        fn a_processor_with_every_bit_lacks_nothing() {
            assert_eq!(missing(&with(!0, !0, !0, true)).count(), 0);
        }

        #[test]
        fn a_processor_with_no_bit_lacks_every_compiled_feature() {
            let mut expected = compiled_in();
            if cfg!(target_feature = "avx") {
                expected.push("AVX register saving by the operating system");
            }
            assert_eq!(missing(&with(0, 0, 0, false)).collect::<Vec<_>>(), expected);
        }

        #[test]
        fn a_sandy_bridge_lacks_the_v3_additions() {
            // Sandy Bridge (2011): SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, AVX, saved by the
            // OS; no FMA, MOVBE, F16C, BMI1, AVX2, BMI2 or LZCNT.
            let leaf1 = 1 | 1 << 9 | 1 << 19 | 1 << 20 | 1 << 23 | 1 << 28;
            let missing: Vec<_> = missing(&with(leaf1, 0, 0, true)).collect();
            let expected: Vec<_> = ["FMA", "MOVBE", "F16C", "BMI1", "AVX2", "BMI2", "LZCNT"]
                .into_iter()
                .filter(|name| compiled_in().contains(name))
                .collect();
            assert_eq!(missing, expected);
        }

        #[test]
        fn every_feature_bit_is_read_from_its_own_register() {
            // One feature present at a time: exactly the others are missing.
            for (name, compiled, register, bit) in FEATURES.iter().copied().filter(|f| f.1) {
                assert!(compiled);
                let mut cpuid = with(0, 0, 0, true);
                cpuid.words[register as usize] = 1 << bit;
                let missing: Vec<_> = missing(&cpuid).collect();
                assert!(!missing.contains(&name), "{name} reported missing");
                assert_eq!(missing.len(), compiled_in().len() - 1, "{name}");
            }
        }
    }
}
