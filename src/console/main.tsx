import { render } from 'preact';
import { prefetch } from './api';
import { App } from './App';
import { interceptLinks } from './router';
import { objectsRequest } from './views/Objects';
import './styles.css';

// the page's data is asked for while the app starts: the overview's numbers, or the first page of objects
if (window.location.pathname === '/') prefetch('/api/overview');
if (window.location.pathname === '/objects') prefetch(objectsRequest(new URLSearchParams(window.location.search)));
const root = document.getElementById('app')!;
interceptLinks(document.body);
root.textContent = '';
render(<App />, root);
