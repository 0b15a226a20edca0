<?php
/**
 * Settings → Ceny mieszkań: the service's address, the only thing the plugin stores. The page goes
 * through the Settings API, so options.php checks the nonce (settings_fields) and the capability
 * (manage_options) before the sanitize callback below runs, and WordPress shows its messages on
 * this page itself (options-head.php).
 *
 * @package DgCeny
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

const DG_CENY_OPTION = 'dg_ceny_service_url';

/**
 * The service's address as stored (no trailing slash), or '' when not set.
 */
function dg_ceny_service_url() {
	$url = get_option( DG_CENY_OPTION, '' );
	return is_string( $url ) ? $url : '';
}

/**
 * The service's address from what an administrator typed, or null when it is not acceptable:
 * https, or http only for the machine itself; no user name or password, query or fragment. The
 * REST base (/wp-json/dg/v2) pasted from the service's panel is dropped, the plugin adds it.
 *
 * @param string $input What was typed.
 * @return string|null
 */
function dg_ceny_normalize_service_url( $input ) {
	$url   = trim( (string) $input );
	$parts = wp_parse_url( $url );
	if ( ! is_array( $parts ) || empty( $parts['scheme'] ) || empty( $parts['host'] ) ) {
		return null;
	}
	$scheme = strtolower( $parts['scheme'] );
	$host   = strtolower( $parts['host'] );
	$local  = in_array( $host, array( 'localhost', '127.0.0.1', '[::1]' ), true );
	if ( ! ( 'https' === $scheme || ( 'http' === $scheme && $local ) ) ) {
		return null;
	}
	if ( isset( $parts['user'] ) || isset( $parts['pass'] ) || isset( $parts['query'] ) || isset( $parts['fragment'] ) ) {
		return null;
	}
	if ( ! preg_match( '/^[a-z0-9.\-]+$|^\[[0-9a-f:]+\]$/', $host ) ) {
		return null;
	}
	$path = isset( $parts['path'] ) ? rtrim( $parts['path'], '/' ) : '';
	$path = preg_replace( '#/wp-json/dg/v2$#', '', $path );
	if ( '' !== $path && ! preg_match( '#^(/[A-Za-z0-9._~\-]+)+$#', $path ) ) {
		return null;
	}
	$port = isset( $parts['port'] ) ? ':' . (int) $parts['port'] : '';
	return $scheme . '://' . $host . $port . $path;
}

/**
 * The sanitize callback: a bad address is refused with a message and the stored one is kept.
 *
 * @param mixed $input The submitted value.
 * @return string
 */
function dg_ceny_sanitize_service_url( $input ) {
	if ( '' === trim( (string) $input ) ) {
		return '';
	}
	$url = dg_ceny_normalize_service_url( (string) $input );
	if ( null === $url ) {
		add_settings_error(
			DG_CENY_OPTION,
			'dg_ceny_invalid_url',
			__( 'The service address must be an https address (http only for localhost), without a user name, password, query or fragment. The previous address was kept.', 'dg-ceny' )
		);
		return dg_ceny_service_url();
	}
	return $url;
}

function dg_ceny_register_setting() {
	register_setting(
		'dg_ceny',
		DG_CENY_OPTION,
		array(
			'type'              => 'string',
			'default'           => '',
			'sanitize_callback' => 'dg_ceny_sanitize_service_url',
			'show_in_rest'      => false,
		)
	);
}

function dg_ceny_add_settings_page() {
	add_options_page(
		__( 'Flat prices', 'dg-ceny' ),
		__( 'Flat prices', 'dg-ceny' ),
		'manage_options',
		'dg-ceny',
		'dg_ceny_render_settings_page'
	);
}

/**
 * @param string[] $links The plugin's links on the Plugins screen.
 * @return string[]
 */
function dg_ceny_settings_link( $links ) {
	$url = admin_url( 'options-general.php?page=dg-ceny' );
	array_unshift( $links, '<a href="' . esc_url( $url ) . '">' . esc_html__( 'Settings', 'dg-ceny' ) . '</a>' );
	return $links;
}

function dg_ceny_render_settings_page() {
	if ( ! current_user_can( 'manage_options' ) ) {
		wp_die( esc_html__( 'You are not allowed to change these settings.', 'dg-ceny' ), 403 );
	}
	$home   = wp_parse_url( home_url() );
	$origin = $home['scheme'] . '://' . $home['host'] . ( isset( $home['port'] ) ? ':' . $home['port'] : '' );
	?>
	<div class="wrap">
		<h1><?php echo esc_html( get_admin_page_title() ); ?></h1>
		<form method="post" action="<?php echo esc_url( admin_url( 'options.php' ) ); ?>">
			<?php settings_fields( 'dg_ceny' ); ?>
			<table class="form-table" role="presentation">
				<tr>
					<th scope="row"><label for="dg_ceny_service_url"><?php esc_html_e( 'Price service address', 'dg-ceny' ); ?></label></th>
					<td>
						<input type="url" class="regular-text code" id="dg_ceny_service_url" name="<?php echo esc_attr( DG_CENY_OPTION ); ?>"
							value="<?php echo esc_attr( dg_ceny_service_url() ); ?>" placeholder="https://ceny.example.pl" />
						<p class="description"><?php esc_html_e( 'The address of the service that publishes your prices on dane.gov.pl. No password is needed: the prices are public.', 'dg-ceny' ); ?></p>
					</td>
				</tr>
			</table>
			<?php submit_button(); ?>
		</form>
		<h2><?php esc_html_e( 'Next step in the service', 'dg-ceny' ); ?></h2>
		<p>
			<?php esc_html_e( 'In the service\'s panel (Katalog → Ceny na stronie WWW), turn on the investment\'s public prices and add this site\'s address to the sites that may show them:', 'dg-ceny' ); ?>
			<code><?php echo esc_html( $origin ); ?></code>
		</p>
		<h2><?php esc_html_e( 'Use', 'dg-ceny' ); ?></h2>
		<p><?php esc_html_e( 'Add the "Flat prices" block to a page, or the shortcode:', 'dg-ceny' ); ?></p>
		<p><code>[dg_ceny inwestycja="3"]</code> <code>[dg_ceny inwestycja="3" widok="karta" lokal="A/1.01"]</code> <code>[dg_ceny inwestycja="3" widok="historia" lokal="A/1.01" jezyk="en"]</code></p>
	</div>
	<?php
}
