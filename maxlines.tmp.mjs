import tseslint from 'typescript-eslint';
export default tseslint.config({ files: ['src/**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }] } });
