/*
 * The public address the files are served from: https in production; an http:// address only for
 * a local trial (the demo), with a warning that the portal will not fetch it.
 */
import type { HostContext } from '../../host/context.js'
import { issue, type PublicationIssue } from '../publication-issue.js'

/** An http:// public address: accepted outside production only, for local trials (the demo). */
export function isTrialAddress(base: string): boolean {
  return base.startsWith('http://')
}

export function publicAddressFindings(
  ctx: HostContext,
  base: string,
): { issue?: PublicationIssue; warning?: PublicationIssue } {
  if (!isTrialAddress(base)) return {}
  if (ctx.config.env === 'production')
    return {
      issue: issue(
        'public_base_url_not_https',
        'W produkcji (DG_ENV=production) publiczny adres plików (Ustawienia, zakładka „Publikacja”) musi zaczynać się od https://; portal dane.gov.pl nie pobiera plików przez http.',
        'In production (DG_ENV=production) the public address of the files (public_base_url) must start with https://; dane.gov.pl does not fetch over http.',
        { public_base_url: base },
      ),
    }
  return {
    warning: issue(
      'public_url_http_trial',
      'Publiczny adres plików to http:// — wystarcza do próby na tym komputerze, ale portal dane.gov.pl pobiera pliki tylko przez https:// na porcie 443. Przed zgłoszeniem zbioru ustaw adres https za serwerem proxy (DG_ENV=production).',
      'The public address of the files is http:// — enough for a trial on this machine, but dane.gov.pl only fetches over https:// on port 443. Before registering the dataset, set an https address behind the proxy (DG_ENV=production).',
      { public_base_url: base },
    ),
  }
}
