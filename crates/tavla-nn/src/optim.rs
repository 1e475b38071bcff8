//! Adam (Kingma & Ba, 2015) over one network's weights, for mini-batch supervised fitting.
//!
//! Plain stochastic gradient descent, one step per sample ([`crate::Network::train`]), has a
//! noise floor set by its learning rate: a fit of 2.4 million samples with it ends with nearly
//! the same error on the samples it trained on as on new ones, and twice the hidden units gain
//! nothing (docs/neural-rounds.md, "Seventh round"). Adam averages a batch of gradients and scales each
//! weight's step by a running estimate of its gradient's size, so rarely active inputs (a
//! fourth checker on the opponent's 24-point) and busy ones (the pip counts) both learn at a
//! sensible rate.

use crate::net::Network;

/// Exponential decay of the first moment (the running mean of the gradient).
const BETA1: f32 = 0.9;
/// Exponential decay of the second moment (the running mean of the squared gradient).
const BETA2: f32 = 0.999;
/// Added to the root of the second moment, so that weights without gradient do not move.
const EPSILON: f32 = 1e-8;

/// The state of Adam for one network: a gradient buffer the batch accumulates into, the two
/// moment estimates and the step count.
#[derive(Debug, Clone)]
pub struct Adam {
    grad: Network,
    m: Network,
    v: Network,
    steps: i32,
    /// Samples accumulated into `grad` since the last step.
    pending: usize,
}

impl Adam {
    /// A fresh state for networks of `net`'s shape.
    #[must_use]
    pub fn new(net: &Network) -> Adam {
        Adam {
            grad: net.zeros_like(),
            m: net.zeros_like(),
            v: net.zeros_like(),
            steps: 0,
            pending: 0,
        }
    }

    /// The gradient buffer of the current batch (for [`Network::accumulate_descent`]); each
    /// call counts one sample of the batch.
    pub fn batch_buffer(&mut self) -> &mut Network {
        self.pending += 1;
        &mut self.grad
    }

    /// The gradient buffer of the current batch without counting another sample (for the
    /// second position of a sibling pair, which counts once).
    pub fn buffer(&mut self) -> &mut Network {
        &mut self.grad
    }

    /// Samples accumulated since the last step.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// One step of learning rate `lr` along the mean of the accumulated descent directions,
    /// then clears the buffer. Does nothing when no sample was accumulated, so a network
    /// without samples in a batch keeps its weights (its moments do not carry it on).
    ///
    /// # Panics
    /// When `net` has another shape than the network the optimiser was made for (a programming
    /// error).
    #[track_caller]
    pub fn step(&mut self, net: &mut Network, lr: f32) {
        assert!(
            net.shape() == self.grad.shape(),
            "stepping a network of another shape"
        );
        if self.pending == 0 {
            return;
        }
        self.steps = self.steps.saturating_add(1);
        let scale = 1.0 / self.pending as f32;
        // Bias corrections of the two moments, folded into the learning rate.
        let c1 = 1.0 - BETA1.powi(self.steps);
        let c2 = 1.0 - BETA2.powi(self.steps);
        let lr_t = lr * c2.sqrt() / c1;
        let eps = EPSILON * c2.sqrt();
        let params = net.params_mut();
        let grads = self.grad.params_mut();
        let ms = self.m.params_mut();
        let vs = self.v.params_mut();
        for (((w, g), m), v) in params.into_iter().zip(grads).zip(ms).zip(vs) {
            for (((w, g), m), v) in w.iter_mut().zip(g.iter_mut()).zip(m).zip(v) {
                let d = *g * scale;
                *g = 0.0;
                *m = BETA1 * *m + (1.0 - BETA1) * d;
                *v = BETA2 * *v + (1.0 - BETA2) * d * d;
                *w += lr_t * *m / (v.sqrt() + eps);
            }
        }
        self.pending = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn adam_fits_a_target_and_leaves_idle_networks_alone() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut net = Network::random(6, 8, &mut rng);
        let x = [1.0, 0.0, 0.5, 0.0, 0.0, 1.0];
        let target = [0.8, 0.3, 0.05, 0.1, 0.02];
        let error = |net: &Network| -> f32 {
            let y = net.forward(&x);
            y.iter().zip(&target).map(|(a, b)| (a - b).abs()).sum()
        };
        let before = error(&net);
        let mut adam = Adam::new(&net);
        for _ in 0..300 {
            for _ in 0..4 {
                let buffer = adam.batch_buffer();
                net.accumulate_descent(&x, buffer, |y| std::array::from_fn(|k| target[k] - y[k]));
            }
            assert_eq!(adam.pending(), 4);
            adam.step(&mut net, 0.01);
            assert_eq!(adam.pending(), 0);
        }
        let after = error(&net);
        assert!(after < 0.01 && after < before / 10.0, "{before} -> {after}");
        // A step without samples changes nothing, even with momentum built up.
        let frozen = net.clone();
        adam.step(&mut net, 0.01);
        assert_eq!(net, frozen);
    }

    #[test]
    fn accumulated_descent_is_the_plain_step() {
        // One sample accumulated and applied as plain gradient descent equals `train`.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let net = Network::random(6, 8, &mut rng);
        let x = [0.0, 1.0, 0.25, 0.0, 2.0, 0.0];
        let target = [0.6, 0.2, 0.01, 0.15, 0.03];
        let mut trained = net.clone();
        trained.train(&x, &target, 0.1);
        let mut grad = net.zeros_like();
        net.accumulate_descent(&x, &mut grad, |y| std::array::from_fn(|k| target[k] - y[k]));
        let mut stepped = net.clone();
        for (w, g) in stepped.params_mut().into_iter().zip(grad.params_mut()) {
            for (w, g) in w.iter_mut().zip(g.iter()) {
                *w += 0.1 * g;
            }
        }
        for (a, b) in stepped.params_mut().into_iter().zip(trained.params_mut()) {
            for (a, b) in a.iter().zip(b.iter()) {
                assert!((a - b).abs() < 1e-6, "{a} vs {b}");
            }
        }
    }
}
