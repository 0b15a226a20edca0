// Images and PDF documents of an offer or an investment: upload (POST {base}/{owner}/{id}/media,
// multipart, with progress), the gallery's order and main image (an edit of the entry: PATCH with
// `gallery` and `thumbnail_id` and its version), each image's text alternative and each
// document's order (PATCH {base}/media/{id}), removal (DELETE {base}/media/{id}). The server judges
// a file by its content; the panel only says what it refused and why.
import { externalLink, formatDate, h, replaceChildren } from '../dom.js'
import { sendVersioned } from './editor-forms.js'
import { tr } from '../i18n.js'
import { card, confirmDialog, errorBox, toast } from '../ui.js'

const ACCEPT = 'image/jpeg,image/png,image/webp,application/pdf,.jpg,.jpeg,.png,.webp,.pdf'

/**
 * @param {{api: any, signal: AbortSignal, owner: 'offers'|'investments', entity: any,
 *   onSaved: (entity: any) => unknown, onCurrent: (entity: any) => unknown}} options
 * `onSaved` gets the entry after a change of its gallery, `onCurrent` the stored one after a conflict.
 */
export function mediaCard({ api, signal, owner, entity: initial, onSaved, onCurrent }) {
  let entity = initial
  const base = `/${owner}/${entity.id}`
  const body = h('div', { class: 'media-body' }, h('p', { class: 'muted' }, tr('Wczytywanie…', 'Loading…')))
  const message = h('div', { class: 'form-message', 'aria-live': 'assertive', id: `${owner}-media-message` })
  const progress = h('ul', { class: 'upload-list', id: 'upload-list', 'aria-live': 'polite' })
  const input = h('input', { type: 'file', id: 'media-file', multiple: true, accept: ACCEPT, class: 'visually-hidden' })
  const drop = h(
    'label',
    { class: 'drop-zone', for: 'media-file', id: 'media-drop' },
    h('strong', {}, tr('Przeciągnij tu zdjęcia lub dokumenty PDF', 'Drop images or PDF documents here')),
    h('span', {}, tr('albo kliknij, aby wybrać pliki z dysku', 'or click to choose files')),
    h('span', { class: 'hint' }, tr('JPEG, PNG, WebP lub PDF', 'JPEG, PNG, WebP or PDF')),
  )
  input.addEventListener('change', () => {
    const files = [.../** @type {FileList} */ (input.files)]
    input.value = ''
    void upload(files)
  })
  drop.addEventListener('dragover', (event) => {
    if (!event.dataTransfer?.types.includes('Files')) return
    event.preventDefault()
    drop.classList.add('dragging')
  })
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'))
  drop.addEventListener('drop', (event) => {
    if (!event.dataTransfer?.files.length) return
    event.preventDefault()
    drop.classList.remove('dragging')
    void upload([...event.dataTransfer.files])
  })

  /** The entry's gallery changed (order, main image, images added or left out): an edit with its version. */
  function placeImages(change, done) {
    return sendVersioned({
      api,
      method: 'PATCH',
      path: base,
      body: change,
      version: entity.version,
      form: body,
      message,
      rowsOf: (_sent, current) => [
        {
          label: tr('Galeria', 'Gallery'),
          mine: tr(
            `${change.gallery?.length ?? entity.gallery.length} zdjęć`,
            `${change.gallery?.length ?? entity.gallery.length} images`,
          ),
          current: tr(`${current.gallery.length} zdjęć`, `${current.gallery.length} images`),
        },
      ],
      onSaved: (saved) => {
        toast(done)
        return onSaved(saved)
      },
      onCurrent,
    })
  }

  async function upload(files) {
    replaceChildren(message)
    const added = []
    for (const file of files) {
      const bar = h('progress', { max: '100', value: '0' })
      const state = h('span', { class: 'upload-state' }, tr('wysyłanie…', 'sending…'))
      const item = h('li', { dataset: { file: file.name } }, h('span', { class: 'upload-name' }, file.name), bar, state)
      progress.append(item)
      const form = new FormData()
      form.append('file', file)
      form.append('title', file.name.replace(/\.[a-z0-9]+$/i, ''))
      try {
        const { body: media } = await api.upload(
          `${base}/media`,
          form,
          (sent, total) => (bar.value = Math.round((sent / total) * 100)),
          signal,
        )
        bar.value = 100
        replaceChildren(state, tr('zapisano', 'stored'))
        item.classList.add('upload-done')
        added.push(media)
      } catch (error) {
        if (error?.name === 'AbortError') return
        bar.remove()
        item.classList.add('upload-failed')
        replaceChildren(state, uploadRefusal(error))
      }
    }
    const images = added.filter((media) => media.kind === 'image').map((media) => media.id)
    if (images.length > 0) {
      // a new image goes to the end of the gallery; the first one becomes the main image if there is none
      await placeImages(
        {
          gallery: [...entity.gallery, ...images],
          ...(entity.thumbnail_id === null ? { thumbnail_id: images[0] } : {}),
        },
        tr('Dodano zdjęcia do galerii.', 'The images are added to the gallery.'),
      )
    } else if (added.length > 0) {
      toast(tr('Dodano dokumenty.', 'The documents are added.'))
      await refresh()
    }
    setTimeout(() => {
      for (const done of progress.querySelectorAll('.upload-done')) done.remove()
    }, 3000)
  }

  async function refresh() {
    let media
    try {
      media = (await api.get(`${base}/media`, { signal })).body
    } catch (error) {
      if (error?.name !== 'AbortError') replaceChildren(body, errorBox(error))
      return
    }
    const byId = new Map(media.map((m) => [m.id, m]))
    const gallery = entity.gallery.map((id) => byId.get(id)).filter(Boolean)
    const inGallery = new Set(entity.gallery)
    const loose = media.filter((m) => m.kind === 'image' && !inGallery.has(m.id) && m.uploaded)
    const documents = media.filter((m) => m.kind === 'document').sort((a, b) => a.position - b.position)
    replaceChildren(
      body,
      h('h3', {}, tr('Galeria', 'Gallery')),
      gallery.length === 0
        ? h('p', { class: 'muted', id: 'gallery-empty' }, tr('Galeria jest pusta.', 'The gallery is empty.'))
        : galleryList(gallery),
      loose.length > 0
        ? [h('h3', {}, tr('Zdjęcia poza galerią', 'Images not in the gallery')), looseList(loose)]
        : null,
      h('h3', {}, tr('Dokumenty', 'Documents')),
      documents.length === 0
        ? h('p', { class: 'muted' }, tr('Brak dokumentów.', 'No documents.'))
        : documentList(documents),
    )
  }

  function move(ids, from, to) {
    const order = [...ids]
    const [id] = order.splice(from, 1)
    order.splice(to, 0, id)
    return order
  }

  /** An image of this service as a picture; one linked by an outside address as a link (the panel's CSP). */
  function picture(image) {
    const src = image.preview_url ?? image.url
    if (image.uploaded && String(src).startsWith(`${location.origin}/`))
      return h('img', { src, alt: image.alt || image.title, loading: 'lazy', draggable: 'false' })
    return h(
      'div',
      { class: 'external-image' },
      tr('Zdjęcie pod zewnętrznym adresem:', 'Image at an outside address:'),
      ' ',
      /^https?:\/\//i.test(src) ? externalLink(src, src.replace(/^https?:\/\//i, '')) : String(src),
    )
  }

  function galleryList(images) {
    const ids = images.map((m) => m.id)
    let dragged = null
    const list = h('ol', { class: 'gallery', id: 'gallery' })
    images.forEach((image, index) => {
      const main = entity.thumbnail_id === image.id
      const alt = h('input', {
        class: 'media-alt',
        value: image.alt,
        maxlength: 500,
        'aria-label': tr(`Opis zdjęcia ${index + 1} dla niewidomych`, `Text alternative of image ${index + 1}`),
        placeholder: tr('opis zdjęcia (alt)', 'text alternative (alt)'),
      })
      alt.addEventListener('change', async () => {
        try {
          await api.request('PATCH', `/media/${image.id}`, { json: { alt: alt.value.trim() } })
          toast(tr('Zapisano opis zdjęcia.', 'The text alternative is saved.'))
        } catch (error) {
          replaceChildren(message, errorBox(error))
        }
      })
      const button = (label, onclick, extra = {}) =>
        h('button', { type: 'button', class: 'button button-quiet button-small', onclick, ...extra }, label)
      const item = h(
        'li',
        {
          class: main ? 'gallery-item main' : 'gallery-item',
          draggable: 'true',
          dataset: { mediaId: String(image.id) },
        },
        picture(image),
        h(
          'div',
          { class: 'gallery-caption' },
          h('span', { class: 'gallery-title' }, image.title),
          main ? h('span', { class: 'badge badge-ok' }, tr('zdjęcie główne', 'main image')) : null,
        ),
        alt,
        h(
          'div',
          { class: 'gallery-actions' },
          button(
            '◀',
            () =>
              placeImages(
                { gallery: move(ids, index, index - 1) },
                tr('Zmieniono kolejność.', 'The order is changed.'),
              ),
            {
              disabled: index === 0,
              title: tr('Wcześniej', 'Earlier'),
              'aria-label': tr('Przesuń wcześniej', 'Move earlier'),
              class: 'button button-quiet button-small move-earlier',
            },
          ),
          button(
            '▶',
            () =>
              placeImages(
                { gallery: move(ids, index, index + 1) },
                tr('Zmieniono kolejność.', 'The order is changed.'),
              ),
            {
              disabled: index === images.length - 1,
              title: tr('Później', 'Later'),
              'aria-label': tr('Przesuń później', 'Move later'),
              class: 'button button-quiet button-small move-later',
            },
          ),
          main
            ? null
            : button(
                tr('Ustaw jako główne', 'Make it the main image'),
                () =>
                  placeImages({ thumbnail_id: image.id }, tr('Ustawiono zdjęcie główne.', 'The main image is set.')),
                { class: 'button button-quiet button-small make-main' },
              ),
          button(
            tr('Usuń z galerii', 'Leave out'),
            () =>
              placeImages(
                {
                  gallery: ids.filter((id) => id !== image.id),
                  ...(main ? { thumbnail_id: ids.find((id) => id !== image.id) ?? null } : {}),
                },
                tr('Usunięto zdjęcie z galerii.', 'The image is left out of the gallery.'),
              ),
            { class: 'button button-quiet button-small leave-out' },
          ),
        ),
      )
      // drag to order; the buttons do the same from the keyboard
      item.addEventListener('dragstart', (event) => {
        dragged = index
        if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move'
        item.classList.add('dragged')
      })
      item.addEventListener('dragend', () => item.classList.remove('dragged'))
      item.addEventListener('dragover', (event) => {
        if (dragged === null) return
        event.preventDefault()
        item.classList.add('drop-target')
      })
      item.addEventListener('dragleave', () => item.classList.remove('drop-target'))
      item.addEventListener('drop', (event) => {
        event.preventDefault()
        item.classList.remove('drop-target')
        if (dragged === null || dragged === index) return
        const from = dragged
        dragged = null
        void placeImages({ gallery: move(ids, from, index) }, tr('Zmieniono kolejność.', 'The order is changed.'))
      })
      list.append(item)
    })
    return list
  }

  function looseList(images) {
    return h(
      'ul',
      { class: 'gallery gallery-loose', id: 'loose-images' },
      images.map((image) =>
        h(
          'li',
          { class: 'gallery-item', dataset: { mediaId: String(image.id) } },
          picture(image),
          h('div', { class: 'gallery-caption' }, h('span', { class: 'gallery-title' }, image.title)),
          h(
            'div',
            { class: 'gallery-actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'button button-quiet button-small add-to-gallery',
                onclick: () =>
                  placeImages(
                    {
                      gallery: [...entity.gallery, image.id],
                      ...(entity.thumbnail_id === null ? { thumbnail_id: image.id } : {}),
                    },
                    tr('Dodano zdjęcie do galerii.', 'The image is added to the gallery.'),
                  ),
              },
              tr('Dodaj do galerii', 'Add to the gallery'),
            ),
            deleteButton(image),
          ),
        ),
      ),
    )
  }

  function deleteButton(media) {
    return h(
      'button',
      {
        type: 'button',
        class: 'button button-quiet button-small delete-media',
        onclick: async () => {
          const ok = await confirmDialog({
            title: tr(`Usunąć plik „${media.title}”?`, `Delete the file "${media.title}"?`),
            body: [
              tr(
                'Plik zostanie usunięty na stałe i zniknie z katalogu.',
                'The file is deleted for good and leaves the catalog.',
              ),
            ],
            okLabel: tr('Usuń plik', 'Delete the file'),
            danger: true,
          })
          if (!ok) return
          try {
            await api.request('DELETE', `/media/${media.id}`)
            toast(tr('Usunięto plik.', 'The file is deleted.'))
            await refresh()
          } catch (error) {
            replaceChildren(message, errorBox(error))
          }
        },
      },
      tr('Usuń plik', 'Delete the file'),
    )
  }

  function documentList(documents) {
    // the order is written as positions 0, 1, 2… of the order shown, whatever numbers they held
    const reorder = async (order) => {
      try {
        for (const [position, doc] of order.entries())
          if (doc.position !== position) await api.request('PATCH', `/media/${doc.id}`, { json: { position } })
        toast(tr('Zmieniono kolejność dokumentów.', 'The order of the documents is changed.'))
      } catch (error) {
        replaceChildren(message, errorBox(error))
      }
      await refresh()
    }
    const moved = (from, to) => {
      const order = [...documents]
      const [doc] = order.splice(from, 1)
      order.splice(to, 0, doc)
      return order
    }
    return h(
      'ul',
      { class: 'documents', id: 'documents' },
      documents.map((doc, index) =>
        h(
          'li',
          { dataset: { mediaId: String(doc.id) } },
          h('a', { href: doc.url, download: '', rel: 'noopener' }, doc.title),
          h('span', { class: 'muted' }, `PDF · ${formatDate(doc.created_at)}`),
          h(
            'span',
            { class: 'gallery-actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'button button-quiet button-small move-up',
                disabled: index === 0,
                'aria-label': tr('Przesuń wyżej', 'Move up'),
                onclick: () => reorder(moved(index, index - 1)),
              },
              '▲',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'button button-quiet button-small move-down',
                disabled: index === documents.length - 1,
                'aria-label': tr('Przesuń niżej', 'Move down'),
                onclick: () => reorder(moved(index, index + 1)),
              },
              '▼',
            ),
            deleteButton(doc),
          ),
        ),
      ),
    )
  }

  void refresh()
  const element = card(
    tr('Zdjęcia i dokumenty', 'Images and documents'),
    h(
      'p',
      { class: 'hint' },
      tr(
        'Zdjęcia trafiają do galerii w katalogu; zdjęcie główne to miniatura oferty. Pliki są sprawdzane po zawartości, a zdjęcia zapisywane bez metadanych (np. położenia GPS).',
        'Images go to the catalog’s gallery; the main image is the offer’s thumbnail. Files are checked by their content and images stored without metadata (such as GPS position).',
      ),
    ),
    input,
    drop,
    progress,
    message,
    body,
  )
  return {
    element,
    /** The entry as stored now (after any save of the page): the gallery is drawn again from it. */
    update(next) {
      entity = next
      void refresh()
    },
  }
}

/** Why the server refused a file, in its own words (it names the limit, the types it takes). */
function uploadRefusal(error) {
  const text = tr(error?.body?.message_pl, error?.body?.message_en) || error?.body?.message
  if (!text || error?.status === 0) return errorBox(error)
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert', dataset: { code: error.code } },
    h('p', { class: 'alert-title' }, text),
    h('p', { class: 'alert-detail' }, `HTTP ${error.status} · ${error.code}`),
  )
}
