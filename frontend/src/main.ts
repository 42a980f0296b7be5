import { mount } from 'svelte';
import './app.css';
import './lib/styles/forms.css';
import App from './App.svelte';

const target = document.getElementById('app');
if (!target) {
  throw new Error('index.html has no #app element to mount Baton into');
}

export default mount(App, { target });
