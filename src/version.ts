/** Version of the public API contract this build implements (`api_version` in the discovery answer). */
export const API_VERSION = '2.1'
/** Version of this service's build (the package version); answers name it `plugin_version`. */
export const SERVICE_VERSION = '2.1.0'
/** REST namespaces: `{base_url}` and `{legacy_base_url}` below the configurable prefix. */
export const REST_NAMESPACE = 'dg/v2'
export const LEGACY_REST_NAMESPACE = 'dg/v1'
