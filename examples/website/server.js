// @ts-check
/*
 * The example website back end: `npm start` (see README.md for the settings).
 */
import { logLine, readSettings, SettingsError, startWebsite } from './src/start.js'

try {
  const settings = readSettings(process.env)
  const site = await startWebsite(settings)
  // the catalog's address and the password stay in this process; only the website's own address is printed
  logLine({ level: 'info', msg: `website listening at ${site.url}` })
  const stop = () => void site.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
} catch (error) {
  process.stderr.write(
    `${error instanceof SettingsError ? 'Setting missing or wrong' : 'Could not start'}: ${error instanceof Error ? error.message : String(error)}\n`,
  )
  process.exit(1)
}
