/*
 * Every operation's description and examples, each feature's kept beside its routes. The host's
 * OpenAPI document cannot import a feature, so buildApp hands it this table.
 */
import { ALERTS_EXAMPLES } from './alerts/alerts-examples.js'
import { CATALOG_EXAMPLES } from './catalog/catalog-examples.js'
import { DASHBOARD_EXAMPLES } from './dashboard/dashboard-examples.js'
import { EDITOR_EXAMPLES } from './editor/editor-examples.js'
import { EMBED_EXAMPLES } from './embed/embed-examples.js'
import { EXPORTS_EXAMPLES } from './exports/exports-examples.js'
import { HOST_EXAMPLES } from './host/http/openapi/host-examples.js'
import { mergeOperationDocs } from './host/http/openapi/operation-docs.js'
import { IMPORTS_EXAMPLES } from './imports/imports-examples.js'
import { LICENSING_EXAMPLES } from './licensing/licensing-examples.js'
import { MAIL_EXAMPLES } from './mail/mail-examples.js'
import { PASSWORD_RESET_EXAMPLES } from './password-reset/password-reset-examples.js'
import { PUBLIC_PRICES_EXAMPLES } from './public-prices/public-prices-examples.js'
import { PUBLICATION_EXAMPLES } from './publication/publication-examples.js'
import { SOURCES_EXAMPLES } from './sources/sources-examples.js'
import { STATUS_EXAMPLES } from './status/status-examples.js'
import { WEBHOOK_EXAMPLES } from './webhook/webhook-examples.js'
import { PLATFORM_EXAMPLES } from './tenancy/platform-examples.js'

/** By "METHOD path", the path as the document writes it. */
export const OPERATION_DOCS = mergeOperationDocs([
  HOST_EXAMPLES,
  PASSWORD_RESET_EXAMPLES,
  STATUS_EXAMPLES,
  LICENSING_EXAMPLES,
  ALERTS_EXAMPLES,
  MAIL_EXAMPLES,
  CATALOG_EXAMPLES,
  IMPORTS_EXAMPLES,
  WEBHOOK_EXAMPLES,
  PUBLICATION_EXAMPLES,
  DASHBOARD_EXAMPLES,
  EDITOR_EXAMPLES,
  SOURCES_EXAMPLES,
  EMBED_EXAMPLES,
  EXPORTS_EXAMPLES,
  PUBLIC_PRICES_EXAMPLES,
  PLATFORM_EXAMPLES,
])
