from django.urls import path

from notes import views

urlpatterns = [
    path("notes/", views.page, name="page"),
    path("api/notes", views.api, name="api"),
]
