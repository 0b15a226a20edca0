/*
 * The block in the editor, without a build step: the settings in the sidebar and, in the page, a
 * preview of the chosen view with a sample investment's prices, labelled as a sample: the editor
 * never calls the price service. What visitors see is rendered by PHP (includes/embed.php).
 */
;(function (wp) {
  const { registerBlockType } = wp.blocks
  const { createElement: el, Fragment } = wp.element
  const { InspectorControls, useBlockProps } = wp.blockEditor
  const { PanelBody, TextControl, SelectControl, Icon } = wp.components
  const { __, sprintf } = wp.i18n

  /** The sample's units: prices per m² and totals in grosze, as the service publishes them. */
  const SAMPLE_UNITS = [
    { code: 'A/1.01', rooms: 2, area: '48.20', perM2: 1240000, total: 59768000, history: [1180000, 1240000] },
    { code: 'A/1.02', rooms: 3, area: '61.75', perM2: 1195000, total: 73791250, history: [1195000] },
    { code: 'B/2.04', rooms: 4, area: '84.10', perM2: 1150000, total: 96715000, history: [1120000, 1150000] },
  ]
  const SAMPLE_DATES = ['2026-03-01', '2026-06-01']

  function formatter(options) {
    const lang = (window.document.documentElement.lang || 'pl-PL').slice(0, 2) === 'pl' ? 'pl-PL' : 'en-GB'
    return new window.Intl.NumberFormat(lang, options)
  }
  const money = (grosze) =>
    formatter({ style: 'currency', currency: 'PLN', minimumFractionDigits: 2 }).format(grosze / 100)
  const area = (text) => `${formatter({ minimumFractionDigits: 2 }).format(Number(text))} m²`

  const cell = { padding: '4px 8px', borderBottom: '1px solid #ddd', textAlign: 'start' }
  const number = Object.assign({}, cell, { textAlign: 'end', whiteSpace: 'nowrap' })

  function sampleTable() {
    const head = [__('Unit', 'dg-ceny'), __('Rooms', 'dg-ceny'), __('Area', 'dg-ceny')]
    const prices = [__('Price per m²', 'dg-ceny'), __('Total price', 'dg-ceny')]
    return el(
      'table',
      { className: 'dg-ceny-sample-table', style: { borderCollapse: 'collapse', width: '100%' } },
      el(
        'thead',
        null,
        el(
          'tr',
          null,
          head.map((label) => el('th', { key: label, style: cell }, label)),
          prices.map((label) => el('th', { key: label, style: number }, label)),
        ),
      ),
      el(
        'tbody',
        null,
        SAMPLE_UNITS.map((unit) =>
          el(
            'tr',
            { key: unit.code },
            el('td', { style: cell }, unit.code),
            el('td', { style: cell }, String(unit.rooms)),
            el('td', { style: cell }, area(unit.area)),
            el('td', { style: number }, money(unit.perM2)),
            el('td', { style: number }, money(unit.total)),
          ),
        ),
      ),
    )
  }

  function sampleCard(unit) {
    const rows = [
      [__('Rooms', 'dg-ceny'), String(unit.rooms)],
      [__('Area', 'dg-ceny'), area(unit.area)],
      [__('Price per m²', 'dg-ceny'), money(unit.perM2)],
      [__('Total price', 'dg-ceny'), money(unit.total)],
    ]
    return el(
      'div',
      { className: 'dg-ceny-sample-card', style: { border: '1px solid #ddd', borderRadius: '6px', padding: '12px' } },
      el('strong', null, sprintf(/* translators: %s: unit designation */ __('Unit %s', 'dg-ceny'), unit.code)),
      el(
        'dl',
        { style: { display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '4px 16px', margin: '8px 0 0' } },
        rows.map(([term, value]) => [
          el('dt', { key: `t${term}` }, term),
          el('dd', { key: `d${term}`, style: { margin: 0 } }, value),
        ]),
      ),
    )
  }

  function sampleHistory(unit) {
    return el(
      'div',
      { className: 'dg-ceny-sample-history' },
      // looks like the component's button; not a button, since the sample opens nothing
      el(
        'span',
        {
          className: 'dg-ceny-sample-button',
          style: {
            display: 'inline-block',
            padding: '6px 12px',
            borderRadius: '6px',
            background: '#1d4ed8',
            color: '#fff',
          },
        },
        sprintf(/* translators: %s: unit designation */ __('Price history of unit %s', 'dg-ceny'), unit.code),
      ),
      el(
        'ul',
        { style: { margin: '8px 0 0', paddingInlineStart: '20px' } },
        unit.history.map((perM2, index) =>
          el(
            'li',
            { key: SAMPLE_DATES[index] },
            sprintf(
              /* translators: 1: date, 2: price per m² */
              __('from %1$s: %2$s per m²', 'dg-ceny'),
              SAMPLE_DATES[index],
              money(perM2),
            ),
          ),
        ),
      ),
    )
  }

  registerBlockType('dg-ceny/ceny', {
    edit({ attributes, setAttributes }) {
      const views = [
        { value: 'tabela', label: __('Table of units', 'dg-ceny') },
        { value: 'karta', label: __('One unit', 'dg-ceny') },
        { value: 'historia', label: __('Price history of one unit', 'dg-ceny') },
      ]
      const languages = [
        { value: '', label: __('As the site', 'dg-ceny') },
        { value: 'pl', label: 'Polski' },
        { value: 'en', label: 'English' },
      ]
      const view = views.find((item) => item.value === attributes.view) || views[0]
      const unit = SAMPLE_UNITS[0]
      const preview =
        view.value === 'karta' ? sampleCard(unit) : view.value === 'historia' ? sampleHistory(unit) : sampleTable()
      return el(
        Fragment,
        null,
        el(
          InspectorControls,
          null,
          el(
            PanelBody,
            { title: __('Flat prices', 'dg-ceny') },
            el(TextControl, {
              label: __('Investment number in the service', 'dg-ceny'),
              type: 'number',
              min: 1,
              value: attributes.investment || '',
              onChange: (value) => setAttributes({ investment: parseInt(value, 10) || undefined }),
            }),
            el(SelectControl, {
              label: __('View', 'dg-ceny'),
              value: attributes.view,
              options: views,
              onChange: (value) => setAttributes({ view: value }),
            }),
            attributes.view !== 'tabela' &&
              el(TextControl, {
                label: __('Unit (e.g. A/1.01)', 'dg-ceny'),
                value: attributes.unit,
                onChange: (value) => setAttributes({ unit: value }),
              }),
            el(SelectControl, {
              label: __('Language', 'dg-ceny'),
              value: attributes.lang,
              options: languages,
              onChange: (value) => setAttributes({ lang: value }),
            }),
          ),
        ),
        el(
          'div',
          useBlockProps({
            className: 'dg-ceny-editor',
            style: {
              border: '1px dashed #949494',
              borderRadius: '2px',
              padding: '16px',
              background: '#fff',
              color: '#1e1e1e',
            },
          }),
          el(
            'p',
            { style: { display: 'flex', alignItems: 'center', gap: '8px', margin: '0 0 8px', fontWeight: 600 } },
            el(Icon, { icon: 'money-alt' }),
            __('Flat prices', 'dg-ceny'),
          ),
          el(
            'p',
            { className: 'dg-ceny-editor-status', style: { margin: '0 0 12px' } },
            attributes.investment
              ? sprintf(
                  /* translators: 1: investment number, 2: view name */
                  __('Investment %1$s: %2$s. Shown to visitors from the price service.', 'dg-ceny'),
                  attributes.investment,
                  view.label,
                )
              : __('Give the investment number in the block settings.', 'dg-ceny'),
          ),
          el(
            'figure',
            { className: 'dg-ceny-sample', style: { margin: 0 } },
            el(
              'figcaption',
              {
                className: 'dg-ceny-sample-label',
                style: {
                  display: 'inline-block',
                  margin: '0 0 8px',
                  padding: '2px 8px',
                  borderRadius: '999px',
                  background: '#fef3c7',
                  color: '#713f12',
                  fontSize: '12px',
                },
              },
              __('Sample prices: the page shows the investment’s prices from the price service.', 'dg-ceny'),
            ),
            preview,
          ),
        ),
      )
    },
    save: () => null,
  })
})(window.wp)
