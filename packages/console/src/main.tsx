import { render } from 'preact';
import { App } from './views/app.js';

const root = document.getElementById('console');
if (root !== null) render(<App />, root);
