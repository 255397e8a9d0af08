import { render } from 'preact';
import { prefetch } from './api';
import { App } from './App';
import { interceptLinks } from './router';
import './styles.css';

// the overview's numbers are what a person looks for first: ask for them while the app starts
if (window.location.pathname === '/') prefetch('/api/overview');
const root = document.getElementById('app')!;
interceptLinks(document.body);
root.textContent = '';
render(<App />, root);
