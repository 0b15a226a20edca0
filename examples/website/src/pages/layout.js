// @ts-check
/*
 * The frame of every page: Polish, one stylesheet of this site, no script at all. Links point at
 * this website only; nothing here names the catalog service or carries its credentials.
 */
import { html } from '../html.js'

/**
 * @param {{ title: string, body: unknown, banner?: string, active?: 'inwestycje' | 'oferty' }} page
 */
export function layout({ title, body, banner, active }) {
  return html`<!doctype html>
    <html lang="pl">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Przykładowy Deweloper</title>
        <link rel="stylesheet" href="/static/site.css" />
      </head>
      <body>
        <header class="site-header">
          <a class="brand" href="/">Przykładowy Deweloper</a>
          <nav aria-label="Menu główne">
            <a href="/" ${active === 'inwestycje' ? html`aria-current="page"` : ''}>Inwestycje</a>
            <a href="/oferty" ${active === 'oferty' ? html`aria-current="page"` : ''}>Oferty</a>
          </nav>
        </header>
        ${banner ? html`<p class="banner" role="note">${banner}</p>` : ''}
        <main>${body}</main>
        <footer class="site-footer">
          <p>
            Ceny i historia cen zgodnie z ustawą o ochronie praw nabywcy lokalu mieszkalnego lub domu jednorodzinnego.
            Ceny brutto.
          </p>
        </footer>
      </body>
    </html> `
}

/**
 * A friendly page for what went wrong; the reason in plain Polish, nothing technical.
 * @param {{ title: string, message: string, hint?: string }} page
 */
export function messagePage({ title, message, hint }) {
  return layout({
    title,
    body: html`<section class="message">
      <h1>${title}</h1>
      <p>${message}</p>
      ${hint ? html`<p class="hint">${hint}</p>` : ''}
      <p><a href="/">Wróć na stronę główną</a></p>
    </section>`,
  })
}
