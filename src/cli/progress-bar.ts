/*
 * The progress bar `dg import` draws on a terminal (cli-progress): what is done of how much, the
 * percentage and the time left. Drawn only on a TTY; logs and pipes get no bar.
 */
import cliProgress from 'cli-progress'

import type { TerminalStream } from './cli-context.js'

export interface ProgressBar {
  /** How far the work is; a total that proves too small (an estimate) grows with the value. */
  update(value: number, total?: number): void
  /** Draws the final state (done, or where the work stopped) and moves below the bar. */
  stop(done: boolean): void
}

// short, so that a 200,000-row line still fits 80 columns: 1h05m, 3m20s, 45s
function duration(seconds: number): string {
  const whole = Math.round(seconds)
  const pad = (n: number) => String(n).padStart(2, '0')
  if (whole >= 3600) return `${Math.floor(whole / 3600)}h${pad(Math.floor((whole % 3600) / 60))}m`
  if (whole >= 60) return `${Math.floor(whole / 60)}m${pad(whole % 60)}s`
  return `${whole}s`
}

export function startProgressBar(stream: TerminalStream, label: string, unit: string, total: number): ProgressBar {
  let known = Math.max(0, total)
  let finished = false
  const bar = new cliProgress.SingleBar({
    stream,
    fps: 5,
    etaBuffer: 20,
    barsize: 24,
    // an unknown total (0) is an empty bar, not a full one
    emptyOnZero: true,
    // the bar writes no terminal modes (wrapping, cursor) that Ctrl-C could leave switched off
    linewrap: true,
    hideCursor: false,
    format: (options, params) => {
      const progress = finished ? 1 : params.progress
      const percent = String(Math.floor(progress * 100)).padStart(3)
      // cli-progress has no estimate before the second update ("NULL", "INF")
      const eta = typeof params.eta === 'number' && params.value > 0 && params.total > 0 ? duration(params.eta) : '…'
      return (
        `${label} [${cliProgress.Format.BarFormat(progress, options)}] ${percent}% ` +
        `| ${params.value}/${params.total > 0 || finished ? params.total : '?'} ${unit} | ` +
        (finished ? 'done' : `${eta} left`)
      )
    },
  })
  bar.start(known, 0)
  return {
    update(value, newTotal) {
      const wanted = Math.max(newTotal ?? known, value)
      if (wanted !== known) {
        known = wanted
        bar.setTotal(known)
      }
      bar.update(value)
    },
    stop(done) {
      finished = done
      bar.stop()
    },
  }
}
