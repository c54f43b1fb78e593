//! Weighted ridge regression over sparse rows, optionally made robust (iteratively reweighted
//! towards the median, so one pair at twelve times retail does not drag its words' weights),
//! with the leave-one-out error of the last rows. Solescope's premium model
//! (`solescope::figures::premium`) fits it.
//!
//! # Why a crate of its own
//!
//! The linear algebra is nalgebra's (Cholesky factorisation, triangular solves). nalgebra is
//! generic, so its code is compiled in the crate that calls it, at that crate's optimisation
//! level: in the application's debug build a Cholesky factorisation of 600 columns took
//! seconds, and the backtest test refits the model month by month. This crate is built
//! optimised in every profile (the workspace's `Cargo.toml`), so the tests run it at speed.
//!
//! The rows are sparse (a title's handful of words among hundreds of columns), so the normal
//! equations are summed here from each row's non-zero entries (rows × entries² products instead
//! of rows × columns²).

use nalgebra::{DMatrix, DVector};

/// One row: `(column, value)` of its non-zero entries, columns distinct.
pub type SparseRow = Vec<(usize, f64)>;

/// A regression to fit.
pub struct Problem<'a> {
    /// The rows.
    pub rows: &'a [SparseRow],
    /// The target of each row.
    pub targets: &'a [f64],
    /// Each row's weight (a recent release counting more than an old one).
    pub row_weights: &'a [f64],
    /// Each column's ridge penalty; the number of columns.
    pub penalties: &'a [f64],
    /// Reweighting rounds towards the median (0: least squares).
    pub robust_rounds: usize,
    /// The smallest error a reweighting divides by, in target units.
    pub robust_floor: f64,
    /// Leave-one-out errors are worked out for this many rows, the last ones.
    pub errors_of_last: usize,
}

/// A fitted regression.
pub struct Fit {
    /// One weight per column.
    pub weights: Vec<f64>,
    /// The last [`Problem::errors_of_last`] rows' error each with the model fitted without
    /// it: `(y − ŷ) / (1 − h)`.
    pub leave_one_out: Vec<f64>,
}

/// `row · weights`.
#[must_use]
pub fn predict(row: &[(usize, f64)], weights: &[f64]) -> f64 {
    row.iter()
        .map(|&(column, value)| value * weights.get(column).copied().unwrap_or(0.0))
        .sum()
}

/// Fits `problem`; `None` when its equations are not positive definite (or a target is not
/// a number).
#[must_use]
pub fn fit(problem: &Problem<'_>) -> Option<Fit> {
    let width = problem.penalties.len();
    if problem.targets.iter().any(|y| !y.is_finite()) {
        return None;
    }
    let mut row_weights = problem.row_weights.to_vec();
    let mean_weight = mean(problem.row_weights);
    let mut round = 0;
    loop {
        let mut gram = DMatrix::<f64>::zeros(width, width);
        let mut moment = DVector::<f64>::zeros(width);
        for ((row, &target), &weight) in problem.rows.iter().zip(problem.targets).zip(&row_weights)
        {
            for &(a, value_a) in row {
                moment[a] += weight * value_a * target;
                for &(b, value_b) in row {
                    gram[(a, b)] += weight * value_a * value_b;
                }
            }
        }
        for (column, penalty) in problem.penalties.iter().enumerate() {
            gram[(column, column)] += penalty;
        }
        let cholesky = gram.cholesky()?;
        let weights: Vec<f64> = cholesky.solve(&moment).iter().copied().collect();
        let errors: Vec<f64> = problem
            .rows
            .iter()
            .zip(problem.targets)
            .map(|(row, target)| target - predict(row, &weights))
            .collect();
        if round == problem.robust_rounds {
            // h = w xᵀ A⁻¹ x = w |L⁻¹ x|² with A = L Lᵀ: one triangular solve per row asked
            // for, instead of the inverse (p³ products, slow in a debug build).
            let lower = cholesky.l();
            let leave_one_out = problem
                .rows
                .iter()
                .zip(&errors)
                .zip(&row_weights)
                .skip(problem.rows.len().saturating_sub(problem.errors_of_last))
                .map(|((row, error), weight)| {
                    let mut dense = DVector::<f64>::zeros(width);
                    for &(column, value) in row {
                        dense[column] = value;
                    }
                    let leverage = lower
                        .solve_lower_triangular(&dense)
                        .map_or(1.0, |solved| weight * solved.norm_squared());
                    error / (1.0 - leverage).max(1e-9)
                })
                .collect();
            return Some(Fit {
                weights,
                leave_one_out,
            });
        }
        // Least absolute errors by reweighting: a row's weight over its error's size, scaled
        // back to the rows' mean weight so the penalties keep their meaning.
        for ((weight, base), error) in row_weights.iter_mut().zip(problem.row_weights).zip(&errors)
        {
            *weight = base / error.abs().max(problem.robust_floor);
        }
        let scale = mean_weight / mean(&row_weights);
        for weight in &mut row_weights {
            *weight *= scale;
        }
        round += 1;
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::{Problem, fit};

    #[test]
    fn recovers_a_line_and_its_leave_one_out_errors() {
        // y = 2 + 3x on x = 0..5, one column for x and one for the intercept.
        let rows: Vec<_> = (0..5).map(|x| vec![(0, f64::from(x)), (1, 1.0)]).collect();
        let targets: Vec<f64> = (0..5).map(|x| 2.0 + 3.0 * f64::from(x)).collect();
        let ones = vec![1.0; 5];
        let fitted = fit(&Problem {
            rows: &rows,
            targets: &targets,
            row_weights: &ones,
            penalties: &[1e-9, 1e-9],
            robust_rounds: 0,
            robust_floor: 0.01,
            errors_of_last: 5,
        })
        .unwrap();
        assert!((fitted.weights[0] - 3.0).abs() < 1e-6);
        assert!((fitted.weights[1] - 2.0).abs() < 1e-6);
        assert!(fitted.leave_one_out.iter().all(|e| e.abs() < 1e-6));

        // One outlier: the leave-one-out error of a row is its error against the fit of the
        // others, worked out by hand: without the last row (x = 4, y = 24 instead of 14) the
        // other four lie on the line, which predicts 14, so its error is 10.
        let mut bent = targets.clone();
        bent[4] = 24.0;
        let fitted = fit(&Problem {
            rows: &rows,
            targets: &bent,
            row_weights: &ones,
            penalties: &[1e-9, 1e-9],
            robust_rounds: 0,
            robust_floor: 0.01,
            errors_of_last: 5,
        })
        .unwrap();
        assert!((fitted.leave_one_out[4] - 10.0).abs() < 1e-6);
        // Made robust, the fit goes back to the line the other four lie on.
        let robust = fit(&Problem {
            rows: &rows,
            targets: &bent,
            row_weights: &ones,
            penalties: &[1e-9, 1e-9],
            robust_rounds: 30,
            robust_floor: 1e-6,
            errors_of_last: 5,
        })
        .unwrap();
        assert!(
            (robust.weights[0] - 3.0).abs() < 0.05,
            "{:?}",
            robust.weights
        );
    }
}
