// Types of scripts/pack-packages.mjs, for tests/packaging (TypeScript).
export declare const ROOT: string;

export interface PackageEntry {
  name: string;
  /** The package folder, relative to the repository root. */
  dir: string;
}

export interface TarballFile {
  data: Buffer;
  mode: number;
}

export interface PackedPackage extends PackageEntry {
  version: string;
  /** Absolute path of the .tgz. */
  tarball: string;
  bytes: number;
  /** Path inside the package (no `package/` prefix) → contents. */
  files: Map<string, TarballFile>;
}

export declare const PACKAGES: readonly PackageEntry[];
export declare function staleBuild(pkg: PackageEntry): string | undefined;
export declare function buildIfStale(options?: { log?: (message: string) => void }): Promise<boolean>;
export declare function readTarball(file: string): Map<string, TarballFile>;
export declare function packPackage(pkg: PackageEntry, destination: string): PackedPackage;
export declare function packPackages(destination: string): PackedPackage[];
