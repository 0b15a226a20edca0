<?php
/**
 * The shortcode [dg_ceny] and the block dg-ceny/ceny: both print one custom element of the
 * service's component script and enqueue that script, which fetches the public prices in the
 * visitor's browser. Nothing is fetched by WordPress itself.
 *
 * @package DgCeny
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

const DG_CENY_SCRIPT_HANDLE = 'dg-ceny-prices';
const DG_CENY_REST_BASE     = '/wp-json/dg/v2';

/** The shortcode's and block's view names → the component's elements. */
const DG_CENY_ELEMENTS = array(
	'tabela'   => 'dg-offer-table',
	'karta'    => 'dg-offer-card',
	'historia' => 'dg-price-history',
);

function dg_ceny_register_embed() {
	add_shortcode( 'dg_ceny', 'dg_ceny_shortcode' );
	wp_register_script( 'dg-ceny-block-editor', plugins_url( 'block/editor.js', DG_CENY_DIR . '/dg-ceny.php' ), array( 'wp-blocks', 'wp-element', 'wp-block-editor', 'wp-components', 'wp-i18n' ), DG_CENY_VERSION, true );
	wp_set_script_translations( 'dg-ceny-block-editor', 'dg-ceny', DG_CENY_DIR . '/languages' );
	register_block_type( DG_CENY_DIR . '/block', array( 'render_callback' => 'dg_ceny_render_block' ) );
}

/**
 * [dg_ceny inwestycja="3" widok="tabela|karta|historia" lokal="A/1.01" jezyk="en"]
 *
 * @param array|string $atts The shortcode's attributes.
 * @return string
 */
function dg_ceny_shortcode( $atts ) {
	$atts = shortcode_atts(
		array(
			'inwestycja' => '',
			'widok'      => 'tabela',
			'lokal'      => '',
			'jezyk'      => '',
		),
		$atts,
		'dg_ceny'
	);
	$html = dg_ceny_embed( $atts['inwestycja'], $atts['widok'], $atts['lokal'], $atts['jezyk'] );
	if ( '' === $html || 0 === strpos( $html, '<p class="dg-ceny-problem">' ) ) {
		return $html;
	}
	// A block of its own, like the block's wrapper: a theme lays its content's blocks out in the text
	// column (twentytwentythree's constrained layout: its children's max-width and auto margins), which
	// the history's button, inline-block, would escape as a bare child and sit at the page's edge. The
	// table's columns need more than the text column: wide where the theme allows it (the block too).
	$class = 'tabela' === strtolower( trim( (string) $atts['widok'] ) ) ? 'dg-ceny alignwide' : 'dg-ceny';
	return '<div class="' . $class . '">' . $html . '</div>';
}

/**
 * @param array $attributes The block's attributes (block.json).
 * @return string
 */
function dg_ceny_render_block( $attributes ) {
	$html = dg_ceny_embed(
		isset( $attributes['investment'] ) ? $attributes['investment'] : '',
		isset( $attributes['view'] ) ? $attributes['view'] : 'tabela',
		isset( $attributes['unit'] ) ? $attributes['unit'] : '',
		isset( $attributes['lang'] ) ? $attributes['lang'] : ''
	);
	if ( '' === $html ) {
		return '';
	}
	$view  = isset( $attributes['view'] ) ? $attributes['view'] : 'tabela';
	$extra = 'tabela' === $view && empty( $attributes['align'] ) ? array( 'class' => 'alignwide' ) : array();
	return '<div ' . get_block_wrapper_attributes( $extra ) . '>' . $html . '</div>';
}

/**
 * The element for one investment (and unit), with the component script enqueued; '' for visitors
 * when something is missing, so a page never shows a broken embed, and a note for its editors.
 *
 * @param mixed $investment The investment's id in the service.
 * @param mixed $view       tabela | karta | historia.
 * @param mixed $unit       The unit's designation or id (karta, historia).
 * @param mixed $lang       pl | en; empty: English unless the site's language is Polish.
 * @return string
 */
function dg_ceny_embed( $investment, $view, $unit, $lang ) {
	$service    = dg_ceny_service_url();
	$investment = is_numeric( $investment ) && (int) $investment > 0 ? (int) $investment : 0;
	$view       = strtolower( trim( (string) $view ) );
	$unit       = trim( (string) $unit );
	$lang       = strtolower( trim( (string) $lang ) );
	if ( '' === $lang ) {
		$lang = 0 === strpos( determine_locale(), 'pl' ) ? 'pl' : 'en';
	}

	$problem = '';
	if ( '' === $service ) {
		$problem = __( 'Flat prices: the price service address is not set (Settings → Flat prices).', 'dg-ceny' );
	} elseif ( 0 === $investment ) {
		$problem = __( 'Flat prices: give the investment\'s number, e.g. [dg_ceny inwestycja="3"].', 'dg-ceny' );
	} elseif ( ! array_key_exists( $view, DG_CENY_ELEMENTS ) ) {
		$problem = __( 'Flat prices: the view must be tabela, karta or historia.', 'dg-ceny' );
	} elseif ( 'tabela' !== $view && '' === $unit ) {
		$problem = __( 'Flat prices: this view needs the unit, e.g. lokal="A/1.01".', 'dg-ceny' );
	} elseif ( ! in_array( $lang, array( 'pl', 'en' ), true ) ) {
		$problem = __( 'Flat prices: the language must be pl or en.', 'dg-ceny' );
	}
	if ( '' !== $problem ) {
		return current_user_can( 'edit_posts' ) ? '<p class="dg-ceny-problem">' . esc_html( $problem ) . '</p>' : '';
	}

	$base = $service . DG_CENY_REST_BASE;
	wp_enqueue_script( DG_CENY_SCRIPT_HANDLE, $base . '/embed/latest/dg-prices.js', array(), null, array( 'strategy' => 'defer' ) );

	$element = DG_CENY_ELEMENTS[ $view ];
	$html    = '<' . $element . ' investment="' . esc_attr( (string) $investment ) . '"';
	if ( 'tabela' !== $view ) {
		$html .= ' unit="' . esc_attr( $unit ) . '"';
	}
	// the service's address is given, not derived from the script's src, which optimisation plugins may move or rewrite
	$html .= ' service="' . esc_url( $base ) . '"';
	if ( 'pl' !== $lang ) {
		$html .= ' lang="' . esc_attr( $lang ) . '"';
	}
	return $html . '></' . $element . '>';
}

/**
 * WordPress before 6.3 reads the fifth argument of wp_enqueue_script as "in footer" only: the
 * defer attribute is added here so the script never blocks the page.
 *
 * @param string $tag    The script tag.
 * @param string $handle Its handle.
 * @return string
 */
function dg_ceny_defer_before_6_3( $tag, $handle ) {
	if ( DG_CENY_SCRIPT_HANDLE === $handle && ! preg_match( '/\sdefer[\s=>]/', $tag ) ) {
		$tag = str_replace( '<script ', '<script defer ', $tag );
	}
	return $tag;
}
if ( version_compare( get_bloginfo( 'version' ), '6.3', '<' ) ) {
	add_filter( 'script_loader_tag', 'dg_ceny_defer_before_6_3', 10, 2 );
}
