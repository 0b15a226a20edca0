<?php
/**
 * Plugin Name:       Ceny mieszkań – dane.gov.pl
 * Description:       Shows the offer prices and their history published by the dane.gov.pl price service on this site: a shortcode and a block. Stores only the service's address.
 * Version:           1.1.0
 * Requires at least: 6.1
 * Requires PHP:      7.4
 * Author:            dg-offers
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       dg-ceny
 * Domain Path:       /languages
 *
 * @package DgCeny
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

define( 'DG_CENY_VERSION', '1.1.0' );
define( 'DG_CENY_DIR', __DIR__ );

require_once __DIR__ . '/includes/settings.php';
require_once __DIR__ . '/includes/embed.php';

add_action(
	'init',
	static function () {
		load_plugin_textdomain( 'dg-ceny', false, dirname( plugin_basename( __FILE__ ) ) . '/languages' );
		dg_ceny_register_embed();
	}
);

if ( is_admin() ) {
	add_action( 'admin_menu', 'dg_ceny_add_settings_page' );
	add_action( 'admin_init', 'dg_ceny_register_setting' );
	add_filter( 'plugin_action_links_' . plugin_basename( __FILE__ ), 'dg_ceny_settings_link' );
}
