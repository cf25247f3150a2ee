import { pageAnswer, pageNotFound, redirectAnswer } from './pages.js';
import type { StaticRoutes } from './steps/route.js';

/** One file of a static site (an SDK reference). */
export interface StaticFile {
  /** Its `Content-Type`. */
  readonly contentType: string;
  /** Its text. */
  readonly body: string;
}

/**
 * The routes of one SDK reference under `/docs/<folder>/` (`client`, `python`): the bare path
 * redirects to the folder, a path beneath it is the loader's file (`index.html` for the folder
 * itself) or a 404. No routes when the server was given no loader.
 */
export function referenceRoutes(folder: string, load: ((path: string) => StaticFile | undefined) | undefined): StaticRoutes {
  if (load === undefined) return {};
  return {
    [`/docs/${folder}`]: () => redirectAnswer(`${folder}/`),
    [`/docs/${folder}/*`]: ({ rest }) => {
      const file = load(rest === '' ? 'index.html' : rest);
      return file === undefined ? pageNotFound(`/docs/${folder}/${rest}`) : pageAnswer(file.contentType, file.body);
    },
  };
}
