import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      'no-console': 'error',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // response bodies are untyped JSON in tests; assertions check their shape
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  { files: ['eslint.config.js', 'scripts/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // extension modules the tests load: plain JavaScript, some of them wrong on purpose
    files: ['test/**/fixtures/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // the examples are plain JavaScript for Node (no build step), type-checked through examples/tsconfig.json
    files: ['examples/**/*.{js,mjs}'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'AbortController',
          'AbortSignal',
          'Buffer',
          'clearTimeout',
          'console',
          'fetch',
          'process',
          'setTimeout',
          'URL',
          'URLSearchParams',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // the WordPress plugin's block editor script: plain JavaScript over the editor's `wp` global, no build step
    files: ['integrations/wordpress/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: { window: 'readonly' },
    },
  },
  {
    // the admin panel's browser modules: plain JavaScript shipped without a build step, typed by JSDoc
    // and checked by tsc (tsconfig.assets.json) rather than by the type-aware lint rules
    files: ['src/admin-panel/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: Object.fromEntries(
        [
          'AbortController',
          'clearInterval',
          'clearTimeout',
          'console',
          'crypto',
          'customElements',
          'document',
          'DOMException',
          'fetch',
          'FormData',
          'getSelection',
          'history',
          'localStorage',
          'location',
          'navigator',
          'Node',
          'setInterval',
          'setTimeout',
          'TextDecoder',
          'URL',
          'URLSearchParams',
          'window',
          'XMLHttpRequest',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // the website component: one classic browser script served as written, checked by tsc like the panel
    files: ['src/embed/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'CSSStyleSheet',
          'customElements',
          'CustomEvent',
          'document',
          'fetch',
          'HTMLElement',
          'Intl',
          'performance',
          'setTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
)
