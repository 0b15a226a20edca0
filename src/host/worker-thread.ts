import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * Starts the worker module that sits beside `moduleUrl` with the suffix `-worker`: compiled
 * JavaScript in a build; TypeScript when the service runs from its sources (tests, benchmarks),
 * which the worker loads after registering tsx itself.
 */
export function startSiblingWorker(moduleUrl: string, options: WorkerOptions = {}): Worker {
  const here = fileURLToPath(moduleUrl)
  if (!here.endsWith('.ts')) return new Worker(here.replace(/\.js$/, '-worker.js'), options)
  const entry = pathToFileURL(here.replace(/\.ts$/, '-worker.ts')).href
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}
