// Types of scripts/build-cli.mjs, for the bench and the tests that call it.
export declare const REPO_ROOT: string
export declare const CLI_BUILD_DIR: string
/** Packages left to Node: native addons and build tools loaded on demand. */
export declare const NATIVE_OR_TOOLS: string[]
/** esbuild plugin: each module's import.meta.url/dirname/filename name its source file. */
export declare const sourceLocation: import('esbuild').Plugin
/** The built entry module when the build matches the sources exactly; undefined when missing or stale. */
export declare function freshCliEntry(): string | undefined
/** Bundles the CLI and writes build.json; returns the entry module's path. */
export declare function buildCli(): Promise<string>
