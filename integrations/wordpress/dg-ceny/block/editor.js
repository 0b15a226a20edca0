/*
 * The block in the editor, without a build step: the settings in the sidebar and a plain
 * placeholder in the page. What visitors see is rendered by PHP (includes/embed.php).
 */
;(function (wp) {
  const { registerBlockType } = wp.blocks
  const { createElement: el, Fragment } = wp.element
  const { InspectorControls, useBlockProps } = wp.blockEditor
  const { PanelBody, TextControl, SelectControl, Placeholder } = wp.components
  const { __, sprintf } = wp.i18n

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
          useBlockProps(),
          el(Placeholder, {
            icon: 'money-alt',
            label: __('Flat prices', 'dg-ceny'),
            instructions: attributes.investment
              ? sprintf(
                  /* translators: 1: investment number, 2: view name */
                  __('Investment %1$s: %2$s. Shown to visitors from the price service.', 'dg-ceny'),
                  attributes.investment,
                  view.label,
                )
              : __('Give the investment number in the block settings.', 'dg-ceny'),
          }),
        ),
      )
    },
    save: () => null,
  })
})(window.wp)
