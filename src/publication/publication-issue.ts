/**
 * A stable code with a corrective message in Polish and English (a publication's `issues`). `message`
 * is the Polish text until an answer is localized for its request (Accept-Language: en).
 */
export interface PublicationIssue {
  code: string
  message: string
  message_pl: string
  message_en: string
  details?: Record<string, unknown>
}

export function issue(
  code: string,
  message_pl: string,
  message_en: string,
  details?: Record<string, unknown>,
): PublicationIssue {
  return { code, message: message_pl, message_pl, message_en, ...(details ? { details } : {}) }
}

/** A publication stopped by what it found: answered 422 with these issues, nothing served changed. */
export class PublicationFailed extends Error {
  constructor(readonly issues: PublicationIssue[]) {
    super(issues.map((i) => i.code).join(', '))
  }
}
