/* Figures the load, soak and fault scripts print: percentiles, a least-squares slope, tables. */

/** The q-quantile (0–1) of values sorted ascending, nearest rank; NaN for none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[rank] as number
}

export interface LatencySummary {
  count: number
  p50: number
  p99: number
  max: number
}

export function summarize(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.length === 0 ? NaN : (sorted[sorted.length - 1] as number),
  }
}

/** Least-squares line through the points: slope per unit of x, and r² (how well a line fits). */
export function linearRegression(xs: readonly number[], ys: readonly number[]): { slope: number; r2: number } {
  const n = Math.min(xs.length, ys.length)
  if (n < 2) return { slope: NaN, r2: NaN }
  let sx = 0
  let sy = 0
  for (let i = 0; i < n; i++) {
    sx += xs[i] as number
    sy += ys[i] as number
  }
  const mx = sx / n
  const my = sy / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx
    const dy = (ys[i] as number) - my
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  const slope = sxx === 0 ? NaN : sxy / sxx
  const r2 = sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy)
  return { slope, r2 }
}

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '-')

/** Left-aligns the first column and right-aligns the others, each as wide as its widest cell. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

export const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS')
