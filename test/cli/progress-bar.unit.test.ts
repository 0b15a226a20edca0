import { Writable } from 'node:stream'

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { startProgressBar } from '../../src/cli/progress-bar.js'

const ESC = String.fromCharCode(0x1b)

/** The text of a line without the cursor and erase sequences cli-progress writes around it. */
function withoutEscapes(line: string): string {
  let text = ''
  for (let at = 0; at < line.length; at++) {
    if (line[at] !== ESC) {
      text += line[at]
      continue
    }
    // ESC 7 / ESC 8 (save, restore) or ESC [ parameters letter
    if (line[at + 1] === '[') while (at + 1 < line.length && !/[A-Za-z]/.test(line[at + 1] ?? '')) at++
    at++
  }
  return text
}

function stream(isTTY: boolean) {
  let text = ''
  const writable = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString('utf8')
        done()
      },
    }),
    { isTTY, columns: 80 },
  )
  // each redraw starts at the line's first column; the last one is what the operator sees
  const lines = () =>
    text
      .split(/\n/)
      .flatMap((line) => line.split(`${ESC}[1G`))
      .map((line) => withoutEscapes(line))
  return { writable, text: () => text, last: () => lines().filter(Boolean).at(-1) ?? '' }
}

describe('the import progress bar', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-11-25T10:00:00Z') })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('shows the done and total counts, the percentage and the time left from the rate so far', () => {
    const terminal = stream(true)
    const bar = startProgressBar(terminal.writable, 'Reading', 'rows', 1000)
    expect(terminal.last()).toBe('Reading [------------------------]   0% | 0/1000 rows | … left')
    vi.advanceTimersByTime(1000)
    bar.update(100)
    expect(terminal.last()).toBe('Reading [==----------------------]  10% | 100/1000 rows | 9s left')
    vi.advanceTimersByTime(59_000)
    bar.update(250)
    expect(terminal.last()).toBe('Reading [======------------------]  25% | 250/1000 rows | 3m00s left')
    bar.update(1000)
    bar.stop(true)
    expect(terminal.last()).toBe('Reading [========================] 100% | 1000/1000 rows | done')
    // every drawn line fits an 80-column terminal
    expect(terminal.last().length).toBeLessThanOrEqual(80)
  })

  it('follows the reader when an estimated total proves wrong, either way', () => {
    const terminal = stream(true)
    const bar = startProgressBar(terminal.writable, 'Reading', 'rows', 10)
    vi.advanceTimersByTime(1000)
    bar.update(15)
    expect(terminal.last()).toContain('100% | 15/15 rows')
    bar.update(12, 12)
    bar.stop(true)
    expect(terminal.last()).toBe('Reading [========================] 100% | 12/12 rows | done')
  })

  it('shows an unknown total as such, and a failed run where it stopped', () => {
    const terminal = stream(true)
    const bar = startProgressBar(terminal.writable, 'Reading', 'rows', 0)
    expect(terminal.last()).toBe('Reading [------------------------]   0% | 0/? rows | … left')
    vi.advanceTimersByTime(1000)
    bar.update(40, 80)
    bar.stop(false)
    expect(terminal.last()).toMatch(/^Reading \[={12}-{12}\] {2}50% \| 40\/80 rows \| \d+s left$/)
    expect(terminal.text().endsWith('\n')).toBe(true)
  })

  it('draws nothing on a stream that is not a terminal', () => {
    const pipe = stream(false)
    const bar = startProgressBar(pipe.writable, 'Writing', 'offers', 10)
    vi.advanceTimersByTime(1000)
    bar.update(5)
    bar.stop(true)
    expect(pipe.text()).toBe('')
  })
})
