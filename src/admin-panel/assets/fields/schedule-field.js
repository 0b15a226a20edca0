// The publication schedule as an operator sets it: a time of day (Polish time) and, if ever
// needed, the days of the week; the cron pattern the service stores is only an advanced field.
// After a save the server's next runs are shown at once (every instance follows within seconds).
// A schedule that skips a day is saved, but the law's word on it is said beside the days.
import { formatWhen, h, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { alertBox } from '../ui.js'

/**
 * Monday first, as a Polish calendar; the values are cron's (0 = Sunday).
 * @type {[value: number, short: [string, string], long: [string, string]][]}
 */
const DAYS = [
  [1, ['pn', 'Mon'], ['poniedziałek', 'Monday']],
  [2, ['wt', 'Tue'], ['wtorek', 'Tuesday']],
  [3, ['śr', 'Wed'], ['środa', 'Wednesday']],
  [4, ['czw', 'Thu'], ['czwartek', 'Thursday']],
  [5, ['pt', 'Fri'], ['piątek', 'Friday']],
  [6, ['sob', 'Sat'], ['sobota', 'Saturday']],
  [0, ['nd', 'Sun'], ['niedziela', 'Sunday']],
]

/** "M H * * D" → { time, days } or null for any other pattern (then only cron can say it). */
export function timeOfDay(pattern) {
  const fields = String(pattern).trim().split(/\s+/)
  if (fields.length !== 5 || fields[2] !== '*' || fields[3] !== '*') return null
  const [minute, hour, , , days] = fields
  if (!/^\d{1,2}$/.test(minute) || !/^\d{1,2}$/.test(hour) || Number(minute) > 59 || Number(hour) > 23) return null
  let list
  if (days === '*') list = [0, 1, 2, 3, 4, 5, 6]
  else if (/^[0-7](,[0-7])*$/.test(days)) list = [...new Set(days.split(',').map((d) => Number(d) % 7))]
  else return null
  return { time: `${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`, days: list }
}

/**
 * A schedule as an operator says it: "codziennie o 00:30", "o 08:00 w dni: pn, śr, pt"; null for a
 * pattern only cron can say (then the pattern itself is shown).
 */
export function scheduleInWords(pattern) {
  const parsed = timeOfDay(pattern)
  if (!parsed) return null
  const { time, days } = parsed
  if (days.length === 7) return tr(`codziennie o ${time}`, `every day at ${time}`)
  const named = DAYS.filter(([value]) => days.includes(value))
  return tr(
    `o ${time} w dni: ${named.map(([, short]) => short[0]).join(', ')}`,
    `at ${time} on ${named.map(([, short]) => short[1]).join(', ')}`,
  )
}

/**
 * The warning of a schedule ticked on some days only (cron's numbers, 0 = Sunday), in the panel's
 * language; null when every day is ticked. The same words as the settings API's schedule_skips_days.
 */
export function skippedDaysWarning(days) {
  const skipped = DAYS.filter(([value]) => !days.includes(value))
  if (skipped.length === 0 || skipped.length === 7) return null
  const names = skipped.map(([, , long]) => tr(...long))
  return tr(
    `Harmonogram pomija dni tygodnia: ${names.join(', ')}. Ustawa (art. 19b ust. 1) wymaga publikacji danych w serwisie dane.gov.pl codziennie: w pominięty dzień plik nie powstanie, a pulpit i alert zgłoszą brakujący dzień. Zaznacz wszystkie dni tygodnia, chyba że prawnik zdecydował inaczej.`,
    `The schedule skips the days of the week ${names.join(', ')}. The act (art. 19b(1)) asks for the data to be published on dane.gov.pl every day: no file is made on a skipped day, and the dashboard and an alert report the missed day. Tick every day of the week unless a lawyer decided otherwise.`,
  )
}

/** "02:00" (or "2:00", "2.00") → [2, 0]; null when not a time of day. */
function parseTime(text) {
  const match = /^(\d{1,2})[:.](\d{2})$/.exec(String(text).trim())
  if (!match || Number(match[1]) > 23 || Number(match[2]) > 59) return null
  return [Number(match[1]), Number(match[2])]
}

/**
 * The picker of a schedule. The publication's by default; a scheduled source passes `idPrefix` (its
 * elements' ids), its own `legend`, and `dailyDuty: false` (the law's daily duty is the publication's).
 * @param {any} settings the saved schedule: `schedule`, and when known its `warnings` and `next_runs`
 * @param {{ idPrefix?: string, legend?: string, dailyDuty?: boolean }} [options]
 */
export function scheduleField(settings, options = {}) {
  const prefix = options.idPrefix
  /** An element's id: the publication's own, or the prefixed one of another schedule. */
  const id = (suffix, publication) => (prefix ? `${prefix}-${suffix}` : publication)
  const simple = timeOfDay(settings.schedule)
  const time = h('input', {
    id: id('time', 'set-schedule-time'),
    name: 'schedule_time',
    value: simple?.time ?? '',
    inputmode: 'numeric',
    placeholder: 'gg:mm',
    size: 5,
    maxlength: 5,
    class: 'time-text',
  })
  const days = DAYS.map(([value, , long]) =>
    h('input', {
      type: 'checkbox',
      id: id(`day-${value}`, `set-schedule-day-${value}`),
      value: String(value),
      checked: simple ? simple.days.includes(value) : true,
      title: tr(...long),
    }),
  )
  const cron = h('input', {
    id: id('cron', 'set-schedule'),
    name: 'schedule',
    value: settings.schedule,
    class: 'mono',
    size: 16,
  })
  const effect = h('p', { class: 'hint', id: id('effect', 'schedule-effect') })
  const duty = h('div', { id: id('daily-duty', 'schedule-daily-duty'), 'aria-live': 'polite' })
  // a pattern only cron can say is judged by the server, for the pattern it saved
  let saved = { pattern: settings.schedule, warnings: settings.warnings ?? [] }
  const next = h('p', { class: 'hint', id: id('next', 'schedule-next') })
  const advanced = h(
    'details',
    { class: 'advanced', open: simple === null },
    h('summary', {}, tr('Zaawansowane: wzorzec cron', 'Advanced: cron pattern')),
    h(
      'label',
      { for: cron.id },
      tr(
        'Wzorzec cron (minuta godzina dzień miesiąc dzień-tygodnia, czas polski)',
        'Cron pattern (minute hour day month weekday, Polish time)',
      ),
    ),
    cron,
  )

  const composed = () => {
    const parsed = parseTime(time.value)
    if (!parsed) return null
    const chosen = days.filter((d) => d.checked).map((d) => Number(d.value))
    if (chosen.length === 0) return null
    const list = chosen.length === 7 ? '*' : chosen.sort((a, b) => a - b).join(',')
    return `${parsed[1]} ${parsed[0]} * * ${list}`
  }
  const showDuty = (text) => {
    if (options.dailyDuty === false) return
    replaceChildren(
      duty,
      text ? alertBox('warning', tr('Publikacja nie codziennie', 'Not published every day'), h('p', {}, text)) : null,
    )
  }
  const describe = () => {
    const simpleNow = timeOfDay(cron.value)
    if (!simpleNow) {
      replaceChildren(
        effect,
        tr('Harmonogram ustawiony wzorcem cron (czas polski).', 'The schedule is set by a cron pattern (Polish time).'),
      )
      const skips = cron.value.trim() === saved.pattern && saved.warnings.find((w) => w.code === 'schedule_skips_days')
      showDuty(skips ? tr(skips.message_pl, skips.message_en) : null)
      return
    }
    showDuty(skippedDaysWarning(simpleNow.days))
    const all = simpleNow.days.length === 7
    const names = DAYS.filter(([value]) => simpleNow.days.includes(value)).map(([, , long]) => tr(...long))
    replaceChildren(
      effect,
      all
        ? tr(`Codziennie o ${simpleNow.time} czasu polskiego.`, `Daily at ${simpleNow.time} Polish time.`)
        : tr(
            `O ${simpleNow.time} czasu polskiego w dni: ${names.join(', ')}.`,
            `At ${simpleNow.time} Polish time on: ${names.join(', ')}.`,
          ),
      ' ',
      tr(
        'Zmiana działa od razu po zapisaniu, bez ponownego uruchamiania usługi.',
        'A change applies as soon as it is saved, without restarting the service.',
      ),
    )
  }
  const fromSimple = () => {
    const pattern = composed()
    if (pattern) cron.value = pattern
    describe()
  }
  const fromCron = () => {
    const parsed = timeOfDay(cron.value)
    if (parsed) {
      time.value = parsed.time
      for (const d of days) d.checked = parsed.days.includes(Number(d.value))
    }
    describe()
  }
  time.addEventListener('input', fromSimple)
  for (const d of days) d.addEventListener('change', fromSimple)
  cron.addEventListener('input', fromCron)
  describe()

  const showNextRuns = (runs) =>
    replaceChildren(
      next,
      runs?.length
        ? [
            h('strong', {}, tr('Najbliższe uruchomienie: ', 'Next run: ')),
            h('span', { id: id('next-run', 'schedule-next-run') }, formatWhen(runs[0])),
            runs.length > 1
              ? tr(
                  `, potem ${runs
                    .slice(1)
                    .map((r) => formatWhen(r))
                    .join(', ')}`,
                  `, then ${runs
                    .slice(1)
                    .map((r) => formatWhen(r))
                    .join(', ')}`,
                )
              : '',
          ]
        : '',
    )
  showNextRuns(settings.next_runs)

  const element = h(
    'fieldset',
    { class: 'field schedule-field', dataset: { field: 'schedule' } },
    h('legend', {}, options.legend ?? tr('Harmonogram publikacji', 'Publication schedule')),
    h(
      'div',
      { class: 'form-row schedule-row' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: time.id }, tr('Godzina (czas polski)', 'Time (Polish time)')),
        time,
      ),
      h(
        'div',
        { class: 'field schedule-days', role: 'group', 'aria-label': tr('Dni tygodnia', 'Days of the week') },
        h('span', { class: 'label' }, tr('Dni tygodnia', 'Days of the week')),
        h(
          'div',
          { class: 'checkbox-row' },
          days.map((d, i) => h('label', { class: 'checkbox', for: d.id, title: d.title }, d, ` ${tr(...DAYS[i][1])}`)),
        ),
      ),
    ),
    effect,
    duty,
    next,
    advanced,
    h('p', { class: 'field-error', id: id('error', 'set-schedule-error'), hidden: true }),
  )
  return {
    element,
    /** The cron pattern to save; time/days when they are valid, the advanced field otherwise. */
    value: () => cron.value.trim(),
    /** The time field's own problem, or null. */
    problem: () =>
      cron.value.trim() === composed() || timeOfDay(cron.value) === null
        ? null
        : parseTime(time.value) === null
          ? tr('Podaj godzinę jako gg:mm, np. 02:00.', 'Give the time as hh:mm, e.g. 02:00.')
          : tr('Zaznacz co najmniej jeden dzień.', 'Tick at least one day.'),
    showNextRuns,
    /** The saved settings' answer: its warnings on the schedule, for a pattern only cron can say. */
    showSaved: (body) => {
      if (!body) return
      saved = { pattern: body.schedule, warnings: body.warnings ?? [] }
      showNextRuns(body.next_runs)
      describe()
    },
  }
}
