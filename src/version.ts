/** Version of the public contract this build implements (contract section 9). */
export const API_VERSION = '2.1'
/** Version of the service ("plugin") itself. */
export const PLUGIN_VERSION = '2.1.0'
/** REST namespaces: `{base_url}` and `{legacy_base_url}` below the configurable prefix. */
export const REST_NAMESPACE = 'dg/v2'
export const LEGACY_REST_NAMESPACE = 'dg/v1'
