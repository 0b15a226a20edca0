/*
 * A real WordPress for the plugin's tests: Debian's `wordpress` package (/usr/share/wordpress, read
 * as installed), PHP-FPM and nginx run by the test itself as unprivileged prefixes in a temporary
 * folder, and a database of its own on the MariaDB at 127.0.0.1:3306 (root, no password), so
 * parallel runs never share anything. Debian's wp-config.php reads /etc/wordpress/config-<name>.php
 * for the name nginx passes as WORDPRESS_CONFIG; the site's file there points wp-content at the
 * temporary folder, where the plugin under test is linked in. .ci/run installs the packages.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { freePort, waitForPort } from './ports.js'

const run = promisify(execFile)

export const WORDPRESS_ROOT = '/usr/share/wordpress'
const PHP = '/usr/bin/php'
const NGINX = '/usr/sbin/nginx'
const MARIADB = { host: '127.0.0.1', port: 3306, user: 'root', password: '' }

function phpFpmBinary(): string | undefined {
  const name = fs.existsSync('/usr/sbin')
    ? fs.readdirSync('/usr/sbin').find((file) => /^php-fpm\d/.test(file))
    : undefined
  return name ? path.join('/usr/sbin', name) : undefined
}

/** The Debian packages the WordPress tests need that are not installed here. */
export function missingWordPressPackages(): string[] {
  const mysqli =
    fs.existsSync('/etc/php') &&
    fs
      .readdirSync('/etc/php')
      .some((version) => fs.existsSync(path.join('/etc/php', version, 'mods-available', 'mysqli.ini')))
  return [
    ['wordpress', fs.existsSync(path.join(WORDPRESS_ROOT, 'wp-settings.php'))],
    ['php-cli', fs.existsSync(PHP)],
    ['php-fpm', phpFpmBinary() !== undefined],
    ['php-mysql', mysqli],
    ['nginx', fs.existsSync(NGINX)],
  ]
    .filter(([, present]) => !present)
    .map(([name]) => name as string)
}

/** Runs a PHP file with php-cli; its stdout, or an error with what PHP said. */
export async function runPhp(file: string): Promise<string> {
  try {
    const { stdout } = await run(PHP, ['-d', 'display_errors=stderr', file], { maxBuffer: 16 * 1024 * 1024 })
    return stdout
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`php ${file} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`)
  }
}

export interface WordPressSite {
  origin: string
  /** The administrator's login and password. */
  admin: { login: string; password: string }
  /** Runs PHP inside the site (after wp-load.php); its stdout. */
  php(code: string): Promise<string>
  /** What WordPress logged (WP_DEBUG_LOG): notices, warnings, errors. */
  debugLog(): string
  stop(): Promise<void>
}

export interface WordPressOptions {
  /**
   * Plugins, activated: a folder is linked into wp-content/plugins/ under its own name; a zip
   * (named after the plugin's folder inside it) is installed as Plugins → Add New → Upload Plugin does.
   */
  plugins: string[]
  /** The site's language, e.g. pl_PL (Debian's wordpress-l10n ships it). */
  locale?: string
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

export async function startWordPress(options: WordPressOptions): Promise<WordPressSite> {
  const id = randomBytes(5).toString('hex')
  const configName = `dg-test-${id}`
  const configFile = `/etc/wordpress/config-${configName}.php`
  const database = `dg_wp_${id}`
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-wp-'))
  fs.chmodSync(dir, 0o755)
  const content = path.join(dir, 'wp-content')
  for (const folder of ['plugins', 'uploads'])
    fs.mkdirSync(path.join(content, folder), { recursive: true, mode: 0o777 })
  fs.symlinkSync(path.join(WORDPRESS_ROOT, 'wp-content', 'themes'), path.join(content, 'themes'))
  fs.symlinkSync(path.join(WORDPRESS_ROOT, 'wp-content', 'languages'), path.join(content, 'languages'))
  const zips = options.plugins.filter((plugin) => plugin.endsWith('.zip'))
  for (const plugin of options.plugins)
    if (!plugin.endsWith('.zip')) fs.symlinkSync(plugin, path.join(content, 'plugins', path.basename(plugin)))

  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const salts = ['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT']
    .concat(['LOGGED_IN_SALT', 'NONCE_SALT'])
    .map((name) => `define('${name}', '${randomBytes(24).toString('hex')}');`)
  fs.writeFileSync(
    configFile,
    [
      '<?php',
      `define('DB_NAME', '${database}');`,
      `define('DB_USER', ${quote(MARIADB.user)});`,
      `define('DB_PASSWORD', ${quote(MARIADB.password)});`,
      `define('DB_HOST', '${MARIADB.host}:${MARIADB.port}');`,
      `define('WP_HOME', '${origin}');`,
      `define('WP_SITEURL', '${origin}');`,
      `define('WP_CONTENT_DIR', ${quote(content)});`,
      `define('WP_CONTENT_URL', '${origin}/wp-content');`,
      "define('WP_DEBUG', true);",
      `define('WP_DEBUG_LOG', ${quote(path.join(dir, 'debug.log'))});`,
      "define('WP_DEBUG_DISPLAY', false);",
      // nothing leaves the machine: no update checks, no cron requests, no file changes
      "define('WP_HTTP_BLOCK_EXTERNAL', true);",
      "define('DISABLE_WP_CRON', true);",
      "define('AUTOMATIC_UPDATER_DISABLED', true);",
      "define('DISALLOW_FILE_MODS', true);",
      ...salts,
      '',
    ].join('\n'),
  )

  let fpm: ChildProcess | undefined
  let nginx: ChildProcess | undefined
  let stopped = false
  const exits: Promise<unknown>[] = []
  let scripts = 0
  const admin = { login: 'admin', password: randomBytes(12).toString('base64url') }

  const php = async (code: string, installing = false): Promise<string> => {
    const file = path.join(dir, `cli-${++scripts}.php`)
    fs.writeFileSync(
      file,
      [
        '<?php',
        `$_SERVER['WORDPRESS_CONFIG'] = '${configName}';`,
        `$_SERVER['HTTP_HOST'] = '127.0.0.1:${port}';`,
        "$_SERVER['REQUEST_URI'] = '/';",
        ...(installing ? ["define('WP_INSTALLING', true);"] : []),
        `require '${WORDPRESS_ROOT}/wp-load.php';`,
        code,
        '',
      ].join('\n'),
    )
    return runPhp(file)
  }

  const dropDatabase = async () => {
    const file = path.join(dir, 'drop-database.php')
    fs.writeFileSync(
      file,
      `<?php $db = new mysqli('${MARIADB.host}', ${quote(MARIADB.user)}, ${quote(MARIADB.password)}, '', ${MARIADB.port}); $db->query('DROP DATABASE IF EXISTS \`${database}\`');\n`,
    )
    await runPhp(file)
  }

  const stop = async () => {
    if (stopped) return
    stopped = true
    nginx?.kill('SIGQUIT')
    fpm?.kill('SIGQUIT')
    await Promise.all(exits)
    await dropDatabase().catch(() => undefined)
    fs.rmSync(configFile, { force: true })
    fs.rmSync(dir, { recursive: true, force: true })
  }

  try {
    const createDatabase = path.join(dir, 'create-database.php')
    fs.writeFileSync(
      createDatabase,
      [
        '<?php',
        `$db = @new mysqli('${MARIADB.host}', ${quote(MARIADB.user)}, ${quote(MARIADB.password)}, '', ${MARIADB.port});`,
        "if ($db->connect_errno) { fwrite(STDERR, 'MariaDB at 127.0.0.1:3306 (root, no password): ' . $db->connect_error); exit(1); }",
        `$db->query('CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci') || exit(1);`,
        '',
      ].join('\n'),
    )
    await runPhp(createDatabase)

    const fpmBinary = phpFpmBinary()
    if (!fpmBinary) throw new Error('php-fpm is missing')
    const socket = path.join(dir, 'php-fpm.sock')
    fs.writeFileSync(
      path.join(dir, 'php-fpm.conf'),
      [
        '[global]',
        `pid = ${path.join(dir, 'php-fpm.pid')}`,
        `error_log = ${path.join(dir, 'php-fpm.log')}`,
        'daemonize = no',
        '[site]',
        `listen = ${socket}`,
        // nginx's workers run as another user than its master
        'listen.mode = 0666',
        'pm = static',
        'pm.max_children = 3',
        'catch_workers_output = yes',
        '',
      ].join('\n'),
    )
    const asRoot = process.getuid?.() === 0 ? ['--allow-to-run-as-root'] : []
    fpm = spawn(fpmBinary, ['--nodaemonize', '--fpm-config', path.join(dir, 'php-fpm.conf'), ...asRoot], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let fpmErrors = ''
    fpm.stderr?.setEncoding('utf8').on('data', (chunk: string) => (fpmErrors += chunk))
    const fpmExited = new Promise((resolve) => fpm?.once('exit', resolve))
    exits.push(fpmExited)

    const temp = (name: string) => {
      const folder = path.join(dir, name)
      fs.mkdirSync(folder, { mode: 0o777 })
      fs.chmodSync(folder, 0o777)
      return folder
    }
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'worker_processes 1;',
        `pid ${path.join(dir, 'nginx.pid')};`,
        `error_log ${path.join(dir, 'nginx-error.log')} warn;`,
        'events { worker_connections 64; }',
        'http {',
        '  include /etc/nginx/mime.types;',
        '  default_type application/octet-stream;',
        `  access_log ${path.join(dir, 'access.log')};`,
        `  client_body_temp_path ${temp('client_body')};`,
        `  proxy_temp_path ${temp('proxy')};`,
        `  fastcgi_temp_path ${temp('fastcgi')};`,
        `  uwsgi_temp_path ${temp('uwsgi')};`,
        `  scgi_temp_path ${temp('scgi')};`,
        '  server {',
        `    listen 127.0.0.1:${port};`,
        `    root ${WORDPRESS_ROOT};`,
        '    index index.php;',
        `    location ^~ /wp-content/ { alias ${content}/; }`,
        '    location / { try_files $uri $uri/ /index.php?$args; }',
        '    location ~ \\.php$ {',
        '      try_files $uri =404;',
        '      include /etc/nginx/fastcgi_params;',
        '      fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;',
        // Debian's fastcgi_params pass HTTP_HOST without the port; WordPress would redirect to itself
        '      fastcgi_param HTTP_HOST $host:$server_port;',
        `      fastcgi_param WORDPRESS_CONFIG ${configName};`,
        `      fastcgi_pass unix:${socket};`,
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    )
    nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'nginx-error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let nginxErrors = ''
    nginx.stderr?.setEncoding('utf8').on('data', (chunk: string) => (nginxErrors += chunk))
    const nginxExited = new Promise((resolve) => nginx?.once('exit', resolve))
    exits.push(nginxExited)
    await waitForPort(port, nginxExited).catch((error: Error) => {
      throw new Error(`${error.message}; nginx: ${nginxErrors}`)
    })
    for (let attempt = 0; attempt < 100 && !fs.existsSync(socket) && fpm.exitCode === null; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    if (!fs.existsSync(socket)) throw new Error(`php-fpm did not start: ${fpmErrors}`)

    await php(
      [
        "require_once ABSPATH . 'wp-admin/includes/upgrade.php';",
        `wp_install('Przykładowy Deweloper', ${quote(admin.login)}, 'admin@example.com', true, '', ${quote(admin.password)}, ${quote(options.locale ?? '')});`,
      ].join('\n'),
      true,
    )
    for (const [index, zip] of zips.entries()) {
      // the upgrader deletes the package it unpacked
      const upload = path.join(dir, `upload-${index}.zip`)
      fs.copyFileSync(zip, upload)
      await php(
        [
          "require_once ABSPATH . 'wp-admin/includes/admin.php';",
          "require_once ABSPATH . 'wp-admin/includes/class-wp-upgrader.php';",
          "if (!defined('FS_METHOD')) define('FS_METHOD', 'direct');",
          '$upgrader = new Plugin_Upgrader(new Automatic_Upgrader_Skin());',
          `$result = $upgrader->install(${quote(upload)});`,
          "if ($result !== true) { fwrite(STDERR, is_wp_error($result) ? $result->get_error_message() : implode(' ', $upgrader->skin->get_upgrade_messages())); exit(1); }",
        ].join('\n'),
      )
    }
    await php(
      [
        "require_once ABSPATH . 'wp-admin/includes/plugin.php';",
        ...options.plugins.map((plugin) => {
          const slug = path.basename(plugin, '.zip')
          return `$result = activate_plugin('${slug}/${slug}.php'); if (is_wp_error($result)) { fwrite(STDERR, $result->get_error_message()); exit(1); }`
        }),
      ].join('\n'),
    )
  } catch (error) {
    await stop()
    throw error
  }

  return {
    origin,
    admin,
    php: (code) => php(code),
    debugLog: () => {
      const file = path.join(dir, 'debug.log')
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
    },
    stop,
  }
}
