/*
 * Search over the handbook's text, on the server (a dozen short pages: a scan of their sections is
 * instant, and the page needs no script). Letters are compared without case and without Polish
 * diacritics, so "zrodlo" finds "źródło"; every word of the query must start a word of the
 * section (Polish words change their endings: "cen" finds "ceny", "cena" and "cenę").
 */
import { escapeHtml, relativeUrl } from './handbook-layout.js'

export interface HandbookSection {
  /** The page's URL relative to the handbook's folder, with the section's anchor (`alerty.html#kanały`). */
  url: string
  pageTitle: string
  heading: string
  text: string
}

interface IndexedSection extends HandbookSection {
  foldedText: string
  foldedHeading: string
  foldedTitle: string
}

const MAX_TERMS = 10
const MAX_RESULTS = 30
const SNIPPET_RADIUS = 90

/**
 * Lower case without diacritics, one output unit per input unit, so a position in the folded text is
 * the same position in the original (the snippets are cut and marked by it).
 */
export function foldText(text: string): string {
  let folded = ''
  for (const char of text) {
    let plain = char.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
    if (char === 'ł' || char === 'Ł') plain = 'l'
    folded += plain.length === char.length ? plain : char
  }
  return folded
}

/** Where `term` starts a word of `folded`. */
function wordStarts(folded: string, term: string): number[] {
  const found: number[] = []
  for (let at = folded.indexOf(term); at !== -1; at = folded.indexOf(term, at + term.length))
    if (at === 0 || !/[\p{L}\p{N}]/u.test(folded[at - 1]!)) found.push(at)
  return found
}

export class HandbookSearch {
  private readonly sections: IndexedSection[]

  constructor(sections: readonly HandbookSection[]) {
    this.sections = sections.map((section) => ({
      ...section,
      foldedText: foldText(section.text),
      foldedHeading: foldText(section.heading),
      foldedTitle: foldText(section.pageTitle),
    }))
  }

  /** The sections holding every word of the query, best first (heading and title matches weigh more). */
  find(query: string): { section: HandbookSection; snippet: string }[] {
    const terms = [...new Set(foldText(query).split(/[\s,.;:!?„”"'()]+/u))].filter(Boolean).slice(0, MAX_TERMS)
    if (!terms.length) return []
    const hits: { section: IndexedSection; score: number }[] = []
    for (const section of this.sections) {
      let score = 0
      for (const term of terms) {
        // a section about the word (its heading, its page's title) before one that only uses it often
        const inText = Math.min(wordStarts(section.foldedText, term).length, 5)
        const inHeading = wordStarts(section.foldedHeading, term).length ? 10 : 0
        const inTitle = wordStarts(section.foldedTitle, term).length ? 3 : 0
        if (!inText && !inHeading && !inTitle) {
          score = 0
          break
        }
        score += inText + inHeading + inTitle
      }
      if (score) hits.push({ section, score })
    }
    hits.sort((a, b) => b.score - a.score)
    return hits.slice(0, MAX_RESULTS).map(({ section }) => ({
      section: { url: section.url, pageTitle: section.pageTitle, heading: section.heading, text: section.text },
      snippet: snippetOf(section.text, section.foldedText, terms),
    }))
  }

  /** The results as the content of the search page served at `searchUrl`. */
  renderResults(query: string, searchUrl: string): string {
    const trimmed = query.trim()
    if (!trimmed)
      return '<h1>Szukaj w podręczniku</h1>\n<p>Wpisz słowo lub kilka słów, np. „licencja” albo „cena zapowiedziana”.</p>'
    const results = this.find(trimmed)
    const heading = `<h1>Wyniki wyszukiwania: „${escapeHtml(trimmed)}”</h1>`
    if (!results.length)
      return `${heading}\n<p class="handbook-no-results">Nic nie znaleziono. Spróbuj innego słowa albo krótszego początku słowa (np. „cen” zamiast „cenami”).</p>`
    const items = results.map(({ section, snippet }) => {
      const where =
        section.heading && section.heading !== section.pageTitle
          ? `${section.pageTitle} › ${section.heading}`
          : section.pageTitle
      return `<li><a href="${escapeHtml(relativeUrl(searchUrl, section.url))}">${escapeHtml(where)}</a>\n<p>${snippet}</p></li>`
    })
    const count = results.length === 1 ? '1 fragment' : `${results.length} ${fragmentsWord(results.length)}`
    return `${heading}\n<p class="muted">Znaleziono ${count}.</p>\n<ol class="handbook-results">\n${items.join('\n')}\n</ol>`
  }
}

function fragmentsWord(n: number): string {
  const lastTwo = n % 100
  const last = n % 10
  return last >= 2 && last <= 4 && (lastTwo < 12 || lastTwo > 14) ? 'fragmenty' : 'fragmentów'
}

/** A piece of the section around the first match, escaped, with every query word marked. */
function snippetOf(text: string, folded: string, terms: readonly string[]): string {
  const first = Math.min(...terms.map((term) => wordStarts(folded, term)[0] ?? Number.MAX_SAFE_INTEGER))
  let start = first === Number.MAX_SAFE_INTEGER ? 0 : Math.max(0, first - SNIPPET_RADIUS)
  let end = Math.min(text.length, start + 2 * SNIPPET_RADIUS + 40)
  if (start > 0) start = text.indexOf(' ', start) + 1 || start
  if (end < text.length) end = text.lastIndexOf(' ', end) > start ? text.lastIndexOf(' ', end) : end
  const marks: [number, number][] = []
  const piece = folded.slice(start, end)
  for (const term of terms) for (const at of wordStarts(piece, term)) marks.push([start + at, start + at + term.length])
  marks.sort((a, b) => a[0] - b[0])
  let html = start > 0 ? '… ' : ''
  let at = start
  for (const [from, to] of marks) {
    if (from < at) continue
    html += `${escapeHtml(text.slice(at, from))}<mark>${escapeHtml(text.slice(from, to))}</mark>`
    at = to
  }
  html += escapeHtml(text.slice(at, end)) + (end < text.length ? ' …' : '')
  return html
}
