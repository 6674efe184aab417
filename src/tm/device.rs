//! Where a Tsetlin Machine trains and evaluates: the CPU (always) or a CUDA GPU (the `cuda`
//! feature, [`crate::tm::cuda`]). This is the seam between the two back-ends: a [`Trainer`]
//! steps whole epochs (the training set stays on the device, the host draws the order),
//! and [`BatchScorer`] turns a batch of samples into class sums.

use crate::tm::data::Dataset;
use crate::tm::inference::InferenceModel;
use crate::tm::persist::Machine;
use std::fmt;
use std::str::FromStr;

/// A place to train or evaluate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Device {
    /// The CPU's threads.
    #[default]
    Cpu,
    /// The first CUDA GPU.
    Cuda,
    /// The GPU's training computed on one CPU thread, with the GPU's random numbers: the
    /// model a `cuda` run gives, exactly, on a machine without a GPU (slow; for checking and
    /// reproducing GPU runs). Inference runs on the CPU.
    CudaReference,
}

impl FromStr for Device {
    type Err = String;

    fn from_str(text: &str) -> Result<Device, String> {
        match text {
            "cpu" => Ok(Device::Cpu),
            "cuda" => Ok(Device::Cuda),
            "cuda-reference" => Ok(Device::CudaReference),
            other => Err(format!(
                "unknown device '{other}': cpu, cuda or cuda-reference"
            )),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Device::Cpu => "cpu",
            Device::Cuda => "cuda",
            Device::CudaReference => "cuda-reference",
        })
    }
}

/// The message of a `cuda` request to a build without the feature.
#[cfg(not(feature = "cuda"))]
fn without_cuda() -> String {
    "this build has no CUDA support: build with `cargo build --release --features cuda`".into()
}

/// Trains one machine on one training set, epoch by epoch, on a device.
pub enum Trainer {
    /// [`Machine::fit_epoch`] on the CPU.
    Cpu,
    /// The per-class machine's epochs on the GPU.
    #[cfg(feature = "cuda")]
    Cuda(Box<crate::tm::cuda::PerClassTrainer>),
    /// The per-class machine's GPU epochs computed on the CPU
    /// ([`crate::tm::MultiClassTm::fit_epoch_device_draws`]).
    CudaReference,
}

impl Trainer {
    /// A trainer of `machine` on `data` (uploaded now for a GPU).
    pub fn new(device: Device, machine: &Machine, data: &Dataset) -> Result<Trainer, String> {
        if device != Device::Cpu && !matches!(machine, Machine::PerClass(_)) {
            return Err(format!(
                "the {device} device trains the per-class machine (--model per-class); \
                 train this one on the cpu"
            ));
        }
        match device {
            Device::Cpu => Ok(Trainer::Cpu),
            Device::CudaReference => Ok(Trainer::CudaReference),
            Device::Cuda => {
                #[cfg(feature = "cuda")]
                return crate::tm::cuda::PerClassTrainer::new(data)
                    .map(|t| Trainer::Cuda(Box::new(t)));
                #[cfg(not(feature = "cuda"))]
                {
                    let _ = data;
                    Err(without_cuda())
                }
            }
        }
    }

    /// [`Trainer::fit_epoch`] with a CPU epoch on the threads of `pool` (a GPU epoch as
    /// always).
    pub fn fit_epoch_in(
        &mut self,
        pool: &rayon::ThreadPool,
        machine: &mut Machine,
        data: &Dataset,
    ) -> Result<(), String> {
        match self {
            Trainer::Cpu => {
                pool.install(|| machine.fit_epoch(data));
                Ok(())
            }
            _ => self.fit_epoch(machine, data),
        }
    }

    /// One epoch of `machine` over `data` (the set the trainer was made with).
    pub fn fit_epoch(&mut self, machine: &mut Machine, data: &Dataset) -> Result<(), String> {
        match self {
            Trainer::Cpu => {
                machine.fit_epoch(data);
                Ok(())
            }
            #[cfg(feature = "cuda")]
            Trainer::Cuda(trainer) => match machine {
                Machine::PerClass(tm) => trainer.fit_epoch(tm, data),
                _ => Err("the cuda trainer holds a per-class machine".into()),
            },
            Trainer::CudaReference => match machine {
                Machine::PerClass(tm) => {
                    tm.fit_epoch_device_draws(data);
                    Ok(())
                }
                _ => Err("the cuda-reference trainer holds a per-class machine".into()),
            },
        }
    }
}

/// Compiled clauses that score batches of samples on a device.
pub enum BatchScorer {
    /// [`InferenceModel::class_sums`] on the CPU's threads.
    Cpu(InferenceModel),
    /// The same sums from the GPU, with the CPU's model to fall back on should the GPU
    /// fail in the middle of a game (said once on stderr).
    #[cfg(feature = "cuda")]
    Cuda {
        /// The clauses on the GPU.
        gpu: Box<crate::tm::cuda::Inference>,
        /// The same clauses for the CPU.
        fallback: InferenceModel,
        /// Set once the GPU failed.
        failed: std::sync::atomic::AtomicBool,
    },
}

impl BatchScorer {
    /// `model` on `device` (uploaded now for a GPU).
    pub fn new(device: Device, model: InferenceModel) -> Result<BatchScorer, String> {
        match device {
            Device::Cpu | Device::CudaReference => Ok(BatchScorer::Cpu(model)),
            #[cfg(feature = "cuda")]
            Device::Cuda => Ok(BatchScorer::Cuda {
                gpu: Box::new(crate::tm::cuda::Inference::new(&model)?),
                fallback: model,
                failed: Default::default(),
            }),
            #[cfg(not(feature = "cuda"))]
            Device::Cuda => Err(without_cuda()),
        }
    }

    /// The model, taken back from its device.
    pub fn into_model(self) -> InferenceModel {
        match self {
            BatchScorer::Cpu(model) => model,
            #[cfg(feature = "cuda")]
            BatchScorer::Cuda { fallback, .. } => fallback,
        }
    }

    /// Whether the GPU failed and the CPU scores instead.
    pub fn fell_back(&self) -> bool {
        match self {
            BatchScorer::Cpu(_) => false,
            #[cfg(feature = "cuda")]
            BatchScorer::Cuda { failed, .. } => failed.load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Clamped class sums of every sample, `classes` per sample (sample-major).
    pub fn class_sums(&self, data: &Dataset) -> Vec<i32> {
        match self {
            BatchScorer::Cpu(model) => model.class_sums(data),
            #[cfg(feature = "cuda")]
            BatchScorer::Cuda {
                gpu,
                fallback,
                failed,
            } => {
                use std::sync::atomic::Ordering;
                if !failed.load(Ordering::Relaxed) {
                    match gpu.class_sums(data) {
                        Ok(sums) => return sums,
                        Err(e) => {
                            if !failed.swap(true, Ordering::Relaxed) {
                                eprintln!("{e}; scoring on the cpu from now on");
                            }
                        }
                    }
                }
                fallback.class_sums(data)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse_and_print() {
        for device in [Device::Cpu, Device::Cuda, Device::CudaReference] {
            assert_eq!(device.to_string().parse::<Device>(), Ok(device));
        }
        let err = "gpu".parse::<Device>().unwrap_err();
        assert!(
            err.contains("'gpu'") && err.contains("cpu, cuda or cuda-reference"),
            "{err}"
        );
    }

    #[test]
    fn the_cuda_reference_trains_per_class_machines_with_the_gpus_draws() {
        use crate::tm::{CoalescedTm, MultiClassTm, Params};
        let mut data = Dataset::new(4);
        for i in 0..40u32 {
            let x: Vec<u8> = (0..4).map(|b| ((i >> b) & 1) as u8).collect();
            data.push(&x, i % 2);
        }
        let params = Params {
            clauses: 10,
            threshold: 5,
            seed: 2,
            ..Params::default()
        };
        let tm = MultiClassTm::new(params.clone(), 4, 2).unwrap();
        let mut machine = Machine::PerClass(tm.clone());
        let mut trainer = Trainer::new(Device::CudaReference, &machine, &data).unwrap();
        trainer.fit_epoch(&mut machine, &data).unwrap();
        let mut direct = tm;
        direct.fit_epoch_device_draws(&data);
        let Machine::PerClass(trained) = &machine else {
            unreachable!()
        };
        let states = |tm: &MultiClassTm| -> Vec<u32> {
            (0..2)
                .flat_map(|c| (0..10).flat_map(move |j| (0..8).map(move |l| (c, j, l))))
                .map(|(c, j, l)| tm.state(c, j, l))
                .collect()
        };
        assert_eq!(states(trained), states(&direct));
        let fresh = MultiClassTm::new(params.clone(), 4, 2).unwrap();
        assert_ne!(
            states(trained),
            states(&fresh),
            "an epoch that changed nothing"
        );
        let coalesced = Machine::Coalesced(CoalescedTm::new(params, 4, 2).unwrap());
        let Err(err) = Trainer::new(Device::CudaReference, &coalesced, &data) else {
            panic!("the reference device took a coalesced machine");
        };
        assert!(
            err.contains("cuda-reference") && err.contains("per-class"),
            "{err}"
        );
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn cuda_without_the_feature_says_how_to_build_it() {
        let model = InferenceModel::new(3, 2, 5, Vec::new());
        let Err(err) = BatchScorer::new(Device::Cuda, model) else {
            panic!("a build without cuda scored on cuda");
        };
        assert!(err.contains("--features cuda"), "{err}");
    }
}
