/*
 * The dataset's harvester XML, built from the resources it lists and checked against the XSD in
 * xmllint's worker thread.
 */
import type { DeveloperRow } from '../../host/db/schema.js'
import { datasetTexts } from '../daily-file/dataset-resources.js'
import { buildHarvesterXml, HarvesterXmlError } from '../daily-file/harvester-xml.js'
import { validateHarvesterXml } from '../daily-file/validate-xml.js'
import { issue, type PublicationIssue } from '../publication-issue.js'
import type { RecordedResource } from './listed-resources.js'
import { isTrialAddress } from './public-address.js'

export interface CheckedXml {
  fileName: string
  /** How many resources it lists. */
  resources: number
  xml: Buffer
  issues: PublicationIssue[]
}

export async function buildAndCheckXml(
  developer: DeveloperRow,
  datasetId: string,
  base: string,
  resources: readonly RecordedResource[],
  fileName: string,
  trialAllowed: boolean,
): Promise<CheckedXml> {
  const trial = trialAllowed && isTrialAddress(base)
  let xml: Buffer
  try {
    xml = Buffer.from(
      buildHarvesterXml({
        allowHttp: trial,
        extIdent: datasetId,
        // the years of the listed days, the entity's own notes and page
        ...datasetTexts(developer, resources),
        url: developer.dataset_url,
        resources: resources.map((day) => ({
          extIdent: day.ext_ident,
          url: day.url,
          dataDate: day.date,
          // as first published: renaming the developer does not rewrite past resources
          titlePl: day.title_pl,
          titleEn: day.title_en,
          descriptionPl: day.description_pl,
          descriptionEn: day.description_en,
        })),
      }),
      'utf8',
    )
  } catch (error) {
    if (!(error instanceof HarvesterXmlError)) throw error
    return {
      fileName,
      resources: resources.length,
      xml: Buffer.alloc(0),
      issues: [issue(`xml_${error.code}`, `Nie można zbudować pliku XML: ${error.message}`, error.message)],
    }
  }
  /*
   * The XSD requires https:// URLs, which a trial address cannot meet; the rest of the file is
   * proven by validating it as it would read behind an https address.
   */
  const check = await validateHarvesterXml(
    trial ? Buffer.from(xml.toString('utf8').replaceAll('<url>http://', '<url>https://'), 'utf8') : xml,
  )
  return {
    fileName,
    resources: resources.length,
    xml,
    issues: check.valid
      ? []
      : [
          issue(
            'xml_xsd_invalid',
            'Plik XML nie jest zgodny ze schematem XSD 1.13.',
            'The XML does not validate against the XSD 1.13.',
            { errors: check.errors.slice(0, 10) },
          ),
        ],
  }
}
