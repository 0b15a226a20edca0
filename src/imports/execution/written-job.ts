/* What an import's execution hands back, whether it ran on this thread or on a worker thread. */
import type { ListingValues } from '../../catalog/caching/listing-cache.js'

export interface ImportResult {
  status: 'completed'
  processed: number
  created: number
  updated: number
  archived: number
  run_id: number
}

export interface WrittenJob {
  result: ImportResult
  /** The catalog lists counted again in the transaction (listing-cache.ts), when `warmUp` was given. */
  listing?: ListingValues
}
