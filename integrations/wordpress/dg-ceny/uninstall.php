<?php
/**
 * Removing the plugin removes the one option it stored.
 *
 * @package DgCeny
 */

if ( ! defined( 'WP_UNINSTALL_PLUGIN' ) ) {
	exit;
}

delete_option( 'dg_ceny_service_url' );
