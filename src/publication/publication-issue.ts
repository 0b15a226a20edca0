/** A stable code with a corrective message in Polish and English (contract 4.6 `issues`). */
export interface PublicationIssue {
  code: string
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
  return { code, message_pl, message_en, ...(details ? { details } : {}) }
}
